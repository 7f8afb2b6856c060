/// The reads a caller's next call is expected to make, as the call that ran foresees them: a
/// challenge's verification reads the challenge and the registration; a verification's next
/// challenge reads the registration, its application and the pending pushes.
///
/// A caller that keeps them between its transactions (a simulated phone, per device) announces
/// them ahead (`StoreTransaction.readAhead`) at the start of its next one, so they travel in its
/// first round trip instead of one of their own after it has read its keychain. A guess changes no
/// answer: a read announced and never made costs one statement, and one made without being
/// foreseen costs the round trip it cost before.
public final class FollowUpReads {
    public private(set) var reads: [StoreRead] = []

    init() {}

    /// What the caller's next call will read (replaces what an earlier call of the session foresaw).
    func foresee(_ reads: [StoreRead]) { self.reads = reads }
}
