// The store's interface and the Relying Party's checks are the domain's vocabulary: whoever imports
// the domain speaks them too.
@_exported import LatchkeyRelyingParty
@_exported import LatchkeyStorage
