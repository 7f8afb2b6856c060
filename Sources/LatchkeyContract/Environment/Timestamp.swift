/// RFC 3339 times in UTC with a `Z` suffix and whole seconds, as the contract writes them.
public enum Timestamp {
    /// Formats `2026-01-01T00:00:00Z`.
    public static func format(_ time: UnixTime) -> String {
        let days = floorDiv(time, 86_400)
        let seconds = time - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(seconds / 3600, 2)):\(pad(seconds / 60 % 60, 2)):\(pad(seconds % 60, 2))Z"
    }

    /// The times RFC 3339's four-digit years can write: 0000-01-01T00:00:00Z to 9999-12-31T23:59:59Z.
    public static let writable: ClosedRange<UnixTime> = -62_167_219_200...253_402_300_799

    /// The longest lifetime anything may be given (the longest duration a method accepts):
    /// 100 years of 366 days, so no time arithmetic can overflow.
    public static let longestLifetime: Int64 = 100 * 366 * 86_400

    /// The latest time a manual clock may show (`--start-time`, `clock/advance`): the longest chain of lifetimes a written time
    /// is made of — a grace period, then an insecure window — ends by 9999-12-31T23:59:59Z, so every time the process writes is
    /// an RFC 3339 time.
    public static let latestClock: UnixTime = writable.upperBound - 2 * longestLifetime

    /// Parses an RFC 3339 time (`Z` or a numeric offset; fractional seconds are dropped); nil for
    /// a day the month does not have, and for a leap second (time here has none).
    public static func parse(_ text: String) -> UnixTime? {
        let chars = Array(text.utf8)
        guard chars.count >= 20 else { return nil }
        func number(_ from: Int, _ count: Int) -> Int64? {
            guard from + count <= chars.count else { return nil }
            var value: Int64 = 0
            for c in chars[from..<from + count] {
                guard c >= 48, c <= 57 else { return nil }
                value = value * 10 + Int64(c - 48)
            }
            return value
        }
        guard let year = number(0, 4), chars[4] == UInt8(ascii: "-"), let month = number(5, 2), chars[7] == UInt8(ascii: "-"),
            let day = number(8, 2), chars[10] == UInt8(ascii: "T") || chars[10] == UInt8(ascii: "t") || chars[10] == UInt8(ascii: " "),
            let hour = number(11, 2), chars[13] == UInt8(ascii: ":"), let minute = number(14, 2),
            chars[16] == UInt8(ascii: ":"), let second = number(17, 2),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60,
            isDay(year, month, day)
        else { return nil }
        var index = 19
        if index < chars.count, chars[index] == UInt8(ascii: ".") {
            index += 1
            while index < chars.count, chars[index] >= 48, chars[index] <= 57 { index += 1 }
        }
        guard index < chars.count else { return nil }
        var offset: Int64 = 0
        switch chars[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            guard index + 1 == chars.count else { return nil }
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard index + 6 == chars.count, let oh = number(index + 1, 2), chars[index + 3] == UInt8(ascii: ":"),
                let om = number(index + 4, 2)
            else { return nil }
            offset = (oh * 3600 + om * 60) * (chars[index] == UInt8(ascii: "+") ? 1 : -1)
        default:
            return nil
        }
        return days(fromCivil: year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offset
    }

    /// Parses a `YYYY-MM-DD` date; nil when it is not a real calendar date.
    public static func isValidDate(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let y = Int64(parts[0]), let m = Int64(parts[1]), let d = Int64(parts[2]),
            (1...12).contains(m), d >= 1
        else { return false }
        return isDay(y, m, d)
    }

    /// Whether the month of that year has that day.
    private static func isDay(_ year: Int64, _ month: Int64, _ day: Int64) -> Bool {
        let (y, m, d) = civil(fromDays: days(fromCivil: year, month, day))
        return y == year && m == month && d == day
    }

    private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    /// Howard Hinnant's days-from-civil and civil-from-days.
    static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDiv(y, 400)
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = floorDiv(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
