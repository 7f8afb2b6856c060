import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

/// What the `onboarding/` methods share (the credentials codec is also `server/onboarding/start`'s).
public enum OnboardingFamily {
    /// The identity onboarding starts from, as the seed's `start(credentials:)` sends it: `email`, `phoneNumber`, `loginName`, or `userId` (the
    /// seed's `userID`) with `birthDate`; `birthDate` may come with any of them.
    ///
    /// Any other shape is refused naming the key (a shape says nothing about users).
    public static let credentials = Codec<OnboardingCredentials>(
        schema: .named(
            "OnboardingCredentials",
            .object(
                [
                    Field("email", .string(), required: false), Field("phoneNumber", .string(), required: false),
                    Field("loginName", .string(), required: false), Field("userId", .string(), required: false, "with birthDate"),
                    Field("userID", .string(), required: false, "the seed's spelling of userId"),
                    Field("birthDate", .string(format: "date"), required: false, "YYYY-MM-DD; required with userId, optional with the others"),
                ], additional: false)),
        read: { json, path, problems in
            guard let object = json.object(at: path, into: &problems) else { return nil }
            let before = problems.count
            var credentials = OnboardingCredentials()
            for entry in object.entries {
                let keyPath = memberPath(path, entry.key)
                guard let slot = credentialSlots[entry.key] else {
                    problems.append(ParamProblem(keyPath, keyPath == path ? "has a key Latchkey does not know" : unknownCredential))
                    continue
                }
                guard case .string(let value) = entry.value else {
                    problems.append(ParamProblem(keyPath, "must be a string, not \(entry.value.typeName)"))
                    continue
                }
                guard acceptsText(value, keyPath, &problems), formats[entry.key].map({ $0.read(entry.value, keyPath, &problems) != nil }) ?? true
                else { continue }
                if entry.key == "userID", object["userId"] != nil {
                    problems.append(ParamProblem(keyPath, "is the same key as userId: give one of them"))
                    continue
                }
                credentials[keyPath: slot] = value
            }
            guard problems.count == before else { return nil }
            if credentials.email == nil, credentials.phoneNumber == nil, credentials.loginName == nil, credentials.userId == nil {
                problems.append(ParamProblem(path, "must name the user: email, phoneNumber, loginName, or userId with birthDate"))
            } else if credentials.userId != nil, credentials.birthDate == nil {
                problems.append(ParamProblem("\(path).birthDate", "is required with userId"))
            }
            return problems.count == before ? credentials : nil
        },
        write: { credentials in
            var object = JSONObject()
            for (key, slot) in credentialOrder { if let value = credentials[keyPath: slot] { object.appendUnchecked(key, .string(value)) } }
            return .object(object)
        })

    private static let credentialOrder: [(String, WritableKeyPath<OnboardingCredentials, String?> & Sendable)] = [
        ("email", \.email), ("phoneNumber", \.phoneNumber), ("loginName", \.loginName), ("userId", \.userId), ("birthDate", \.birthDate),
    ]

    private static let credentialSlots = Dictionary(uniqueKeysWithValues: credentialOrder + [("userID", \OnboardingCredentials.userId)])

    /// The forms of the credentials that have one (as `admin/createUser` checks them).
    private static let formats: [String: Codec<String>] = ["email": .email, "phoneNumber": .phoneNumber, "birthDate": .date]

    private static let unknownCredential = "is not a credential Latchkey knows (email, phoneNumber, loginName, userId with birthDate)"
}
