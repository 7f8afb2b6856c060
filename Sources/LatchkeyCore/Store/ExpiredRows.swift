/// How long a row stays in the store once it has expired.
///
/// Until then it answers as expired (`sessionExpired`, `verificationCodeExpired`); after that, the next write of
/// its kind forgets it, so what anonymous callers leave behind (codes for unknown identifiers, ceremonies never
/// finished, rate-limit events) does not pile up.
enum ExpiredRows {
    static let keptFor: Int64 = 86_400
}
