import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

// The `data` of each callback event type, as the server layer writes it when the domain reports a
// change (the domain knows no JSON): it is stored with the event and sent as it is on every attempt.

/// Writes callback events' `data` from domain events.
struct CallbackEventRenderer: CallbackRenderer {
    func data(of event: DomainEvent) -> [UInt8] {
        JSONSerializer.serialize(Self.json(event))
    }

    static func json(_ event: DomainEvent) -> JSON {
        switch event {
        case .operationChanged(let operation):
            return Notifications.OperationChanged(operation: operation).wireJSON()
        case .accountRecoveryChanged(let uid, let status):
            return Notifications.RecoveryChanged(uid: uid, accountRecovery: status).wireJSON()
        case .registrationStateChanged(let change):
            return RegistrationChanged(change).wireJSON()
        case .onboardingStatusChanged(let processId, _, let status):
            return .object(JSONObject([("processId", .string(processId)), ("status", .string(status.rawValue))]))
        case .delivery, .withheldDelivery, .accountRecoveryCallback, .audit:
            return .object(JSONObject())
        }
    }

    /// `registration.stateChanged`'s data.
    struct RegistrationChanged: WireObject {
        var registrationId: String
        var userId: String
        var applicationId: String
        var state: RegistrationState
        var previousState: RegistrationState?
        static let fields: [WireField<Self>] = [
            .required("registrationId", \.registrationId, .text), .required("userId", \.userId, .text),
            .required("applicationId", \.applicationId, .text), .required("state", \.state, .enumeration(RegistrationState.self)),
            .nullable("previousState", \.previousState, .enumeration(RegistrationState.self), "null for an activation"),
        ]

        init(_ change: RegistrationStateChange) {
            registrationId = change.registrationId
            userId = change.userId
            applicationId = change.applicationId
            state = change.state
            previousState = change.previous
        }
    }
}
