import LatchkeyContract

/// What `admin/createOperation` is given.
public struct NewOperation: Sendable {
    public var userId: String
    public var template: String
    /// Values for the template's placeholders, by name.
    public var parameters: [(name: String, value: String)]
    /// The one phone that may approve it.
    public var registrationId: String?
    public var externalId: String?
    /// 30–86 400; default the template's.
    public var ttlSeconds: Int64?
    public var applicationId: String?

    public init(
        userId: String, template: String, parameters: [(name: String, value: String)] = [], registrationId: String? = nil,
        externalId: String? = nil, ttlSeconds: Int64? = nil, applicationId: String? = nil
    ) {
        self.userId = userId
        self.template = template
        self.parameters = parameters
        self.registrationId = registrationId
        self.externalId = externalId
        self.ttlSeconds = ttlSeconds
        self.applicationId = applicationId
    }
}

extension OperationRecord {
    var operationStatus: OperationStatus { OperationStatus(rawValue: status) ?? .failed }
    var methods: [OperationApproval] { allowedMethods.split(separator: "\n").compactMap { OperationApproval(rawValue: String($0)) } }
    var isPending: Bool { operationStatus == .pending }

    /// The caller's view.
    func operation() throws -> Operation {
        Operation(
            operationId: id, userId: userId, applicationId: applicationId, registrationId: registrationId, template: template, data: data,
            title: title, message: message, attributes: try OperationAttributes.decode(attributes), status: operationStatus,
            failureCount: failureCount, maxFailureCount: maxFailureCount, createdAt: createdAt, expiresAt: expiresAt, decidedAt: decidedAt,
            approvedWith: approvedWith.flatMap(OperationApproval.init(rawValue:)),
            rejectReason: rejectReason.flatMap(OperationRejectReason.init(rawValue:)), externalId: externalId)
    }

    /// The hash an approval must sign.
    var hash: String { OperationHash.of(operationId: id, title: title, message: message, data: data) }

    /// A user's pending operations, oldest first.
    static let pendingOf = KeyedQuery<OperationRecord>(Columns.userId, and: [.equals(Columns.status, OperationStatus.pending.rawValue)])

    /// A user's operations, newest first (ties by commit order), optionally of one status, at most `limit`.
    static func listed(userId: String, status: OperationStatus?, limit: Int) -> StoreQuery<OperationRecord> {
        StoreQuery(
            where: [.equals(Columns.userId, userId)] + (status.map { [.equals(Columns.status, $0.rawValue)] } ?? []), newestFirst: true,
            limit: limit)
    }
}

/// The rules of filled texts: a title of at most 256 bytes and a message of at most 1 024, no character below U+0020 (the message may
/// break lines), no bidirectional control.
enum OperationTexts {
    static let maxTitleBytes = 256
    static let maxMessageBytes = 1024

    /// The rule `text` breaks, if any.
    static func problem(_ text: String, maxBytes: Int, newlines: Bool) -> String? {
        if text.utf8.count > maxBytes { return "is longer than \(maxBytes) bytes once filled" }
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20, !(newlines && scalar == "\n") {
                return newlines ? "holds a control character other than a newline once filled" : "holds a control character once filled"
            }
            if isBidirectionalControl(scalar) {
                return "holds a bidirectional control character (U+202A–U+202E, U+2066–U+2069) once filled"
            }
        }
        return nil
    }

    /// U+202A–U+202E and U+2066–U+2069: what shows text otherwise than it reads.
    static func isBidirectionalControl(_ scalar: Unicode.Scalar) -> Bool {
        (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }
}

extension Latchkey {
    /// Creates an operation from a template, `pending`.
    ///
    /// A value filled into `data` is escaped (no parameter adds a field); into `title` and `message` it goes as it is.
    /// - Throws: `notFound` (user, application, operationTemplate), `invalidParams` (a parameter missing or unused, a registration that is
    ///   not the user's, filled texts or data that break a rule).
    public func createOperation(_ new: NewOperation) throws -> Operation {
        try transact { tx, effects in
            let applicationId = new.applicationId ?? ApplicationConfig.defaultApplicationId
            tx.willRead(
                [
                    .row(UserRecord.self, id: new.userId), .row(ApplicationRecord.self, id: applicationId),
                    .row(OperationTemplateRecord.self, id: OperationTemplateRecord.id(applicationId: applicationId, name: new.template)),
                ] + (new.registrationId.map { [.row(RegistrationRecord.self, id: $0)] } ?? []))
            let user = try user(tx, new.userId)
            let app = try application(tx, new.applicationId)
            let template = try operationTemplate(tx, applicationId: app.applicationId, name: new.template)
            if let registrationId = new.registrationId {
                guard let registration = try tx.fetch(RegistrationRecord.self, id: registrationId), registration.userId.isSameId(as: user.id),
                    registration.applicationId.isSameId(as: app.applicationId), registration.registrationState != .removed
                else {
                    throw DomainError.invalid(
                        .operationRegistration, "must be a registration of the user in the operation's application, not removed")
                }
            }
            let filled = try fill(template, new.parameters)
            let record = OperationRecord(
                id: random.uuid(), userId: user.id, applicationId: app.applicationId, registrationId: new.registrationId,
                template: template.name, data: filled.data, title: filled.title, message: filled.message,
                attributes: OperationAttributes.encode(filled.attributes), status: OperationStatus.pending.rawValue, failureCount: 0,
                maxFailureCount: template.maxFailureCount, allowedMethods: template.allowedMethods.map(\.rawValue).joined(separator: "\n"),
                createdAt: now, expiresAt: now + (new.ttlSeconds ?? template.ttlSeconds), decidedAt: nil, approvedWith: nil,
                rejectReason: nil, externalId: new.externalId)
            try tx.save(record)
            try announce(tx, effects, record, .operationCreated)
            return try record.operation()
        }
    }

    /// The template's texts and attributes filled from `parameters`.
    /// - Throws: `invalidParams` naming `parameters.<name>` (missing, unused), `title`, `message` or `data`.
    private func fill(
        _ template: OperationTemplate, _ parameters: [(name: String, value: String)]
    ) throws -> (
        title: String, message: String, data: String, attributes: [OperationAttribute]
    ) {
        // Names by their bytes, as the placeholders are written: a Dictionary of Strings takes a look-alike for the name.
        let values = Dictionary(parameters.map { (Array($0.name.utf8), $0.value) }, uniquingKeysWith: { _, last in last })
        let used = Set(template.texts.flatMap { Placeholders.names($0) ?? [] }.map { Array($0.utf8) })
        if let unused = parameters.first(where: { !used.contains(Array($0.name.utf8)) }) {
            throw DomainError.invalid(.operationParameter(name: unused.name), "is not used by the template's placeholders")
        }
        func value(_ name: String) throws -> String {
            guard let value = values[Array(name.utf8)] else {
                throw DomainError.invalid(.operationParameter(name: name), "is required by the template's placeholder ${\(name)}")
            }
            return value
        }
        let title = try Placeholders.fill(template.title, value)
        let message = try Placeholders.fill(template.message, value)
        let data = try Placeholders.fill(template.data) { OperationData.escape(try value($0)) }
        let attributes = try template.attributes.map { try $0.mapTexts { try Placeholders.fill($0, value) } }
        try checkListedParts(template, attributes)
        if let problem = OperationTexts.problem(title, maxBytes: OperationTexts.maxTitleBytes, newlines: false) {
            throw DomainError.invalid(.operationText("title"), problem)
        }
        if let problem = OperationTexts.problem(message, maxBytes: OperationTexts.maxMessageBytes, newlines: true) {
            throw DomainError.invalid(.operationText("message"), problem)
        }
        let parsed: OperationData
        do {
            parsed = try OperationData.parse(data)
        } catch {
            throw DomainError.invalid(.operationText("data"), "is not valid operation data once filled: it \(error.rule)")
        }
        // No parameter adds a field, whatever template is stored (one kept from before its backslash rule: a `\` before a
        // placeholder pairs with the value's escape).
        guard parsed.fields.count == OperationAttribute.fields(of: template.data).count - 1 else {
            throw DomainError.invalid(.operationText("data"), "would hold other fields than the template's once filled")
        }
        return (title, message, data, attributes)
    }

    /// What each attribute lists must read the same in the signed data.
    ///
    /// An amount attribute renders data's `A<amount><currency>`: each part must be what the phone lists it as, or the field would
    /// read otherwise (amount "1" and currency "000000.00EUR" fill `A1000000.00EUR`). A value or note listed as one comma-separated
    /// part of a field that several placeholders share (`T${name},${city}`) holds no comma, or another split of the same signed
    /// bytes would read otherwise.
    /// - Throws: `invalidParams` naming the parameter (or `data`, for a part written with several).
    private func checkListedParts(_ template: OperationTemplate, _ filled: [OperationAttribute]) throws {
        let fields = OperationAttribute.fields(of: template.data).dropFirst()
        for (written, listed) in zip(template.attributes, filled) {
            var parts: [(text: String, isValid: Bool, rule: String)] = []
            switch (written, listed) {
            case (.amount(_, let amountText, let currencyText), .amount(_, let amount, let currency)):
                parts = [
                    (amountText, OperationData.isAmount(amount.utf8), "must be an amount (digits with at most one dot)"),
                    (currencyText, OperationData.isCurrency(currency.utf8), "must be a currency (three capital letters)"),
                ]
            case (.keyValue(_, let text), .keyValue(_, let value)), (.note(_, let text), .note(_, let value)):
                guard !fields.contains(where: { OperationAttribute.field($0, isValue: text) }),
                    let field = fields.first(where: { OperationAttribute.field($0, hasPart: text) }),
                    (Placeholders.names(field) ?? []).count > 1
                else { continue }
                parts = [(text, !value.unicodeScalars.contains(","), "must hold no comma")]
            default:
                continue
            }
            if let broken = parts.first(where: { !$0.isValid }) {
                let names = Placeholders.names(broken.text) ?? []
                throw DomainError.invalid(
                    names.count == 1 ? .operationParameter(name: names[0]) : .operationText("data"),
                    "\(broken.rule): an attribute lists it as that part of a data field")
            }
        }
    }

    /// An operation, expired if its time is up.
    /// - Throws: `notFound` (`operation`).
    public func operation(operationId: String) throws -> Operation {
        try transact { tx, effects in
            tx.willRead([.row(OperationRecord.self, id: operationId)])
            return try settledOperation(tx, effects, operationId).operation()
        }
    }

    /// A user's operations, newest first (ties by commit order), optionally of one status.
    /// - Throws: `notFound` (user).
    public func operations(userId: String, status: OperationStatus?, limit: Int) throws -> [Operation] {
        try transact { tx, effects in
            let listed = OperationRecord.listed(userId: userId, status: status, limit: limit)
            tx.willRead([.row(UserRecord.self, id: userId), .rows(OperationRecord.pendingOf.query(userId)), .rows(listed)])
            _ = try user(tx, userId)
            // Every read before the first write (a write to the table forgets what was read of it): the list as it stood, then what
            // this call's expiries change in it.
            let before = try tx.fetchAll(listed)
            let wasPending = try expireDueOperations(tx, effects, of: userId)
            let expired = Dictionary(uniqueKeysWithValues: wasPending.filter { !$0.isPending }.map { ($0.id, $0) })
            guard !expired.isEmpty else { return try before.map { try $0.operation() } }
            switch status {
            case .pending?:
                // Every pending operation was read (oldest first): those still pending, newest first.
                return try wasPending.filter(\.isPending).reversed().prefix(limit).map { try $0.operation() }
            case .expired?:
                // Those just expired join the list where the store orders them: read again (on PostgreSQL a third round trip,
                // only when this call expired one).
                return try tx.fetchAll(listed).map { try $0.operation() }
            default:
                return try before.map { try (expired[$0.id] ?? $0).operation() }
            }
        }
    }

    /// Cancels a pending operation (the back end no longer wants it approved).
    /// - Throws: `notFound` (`operation`), `operationNotPending`.
    public func cancelOperation(operationId: String) throws -> Operation {
        try transact { tx, effects in
            tx.willRead([.row(OperationRecord.self, id: operationId)])
            var record = try settledOperation(tx, effects, operationId)
            try requirePending(record)
            record.status = OperationStatus.canceled.rawValue
            record.decidedAt = now
            try tx.save(record)
            try announce(tx, effects, record, .operationCanceled)
            return try record.operation()
        }
    }

    /// The operation `operationId`, made `expired` when its time is up (announced in this transaction).
    /// - Throws: `notFound` (`operation`).
    func settledOperation(_ tx: StoreTransaction, _ effects: Effects, _ operationId: String) throws -> OperationRecord {
        guard var record = try tx.fetch(OperationRecord.self, id: operationId) else { throw DomainError.notFound("operation") }
        try settle(tx, effects, &record)
        return record
    }

    /// Expires `record` if it is pending and its time is up: `decidedAt` its `expiresAt`.
    func settle(_ tx: StoreTransaction, _ effects: Effects, _ record: inout OperationRecord) throws {
        guard record.isPending, now >= record.expiresAt else { return }
        record.status = OperationStatus.expired.rawValue
        record.decidedAt = record.expiresAt
        try tx.save(record)
        try announce(tx, effects, record, .operationExpired, at: record.expiresAt)
    }

    /// - Throws: `operationNotPending` with `data.status`.
    func requirePending(_ record: OperationRecord) throws {
        guard record.isPending else {
            throw DomainError(
                .operationNotPending, "The operation is \(record.status), no longer pending", [(.status, .string(record.status))])
        }
    }

    /// Audits a creation or a change of status and announces it (topic `operations`, and callbacks).
    func announce(
        _ tx: StoreTransaction, _ effects: Effects, _ record: OperationRecord, _ type: AuditEventType, at: UnixTime? = nil,
        registrationId: String? = nil, caller: Caller? = nil, dataMismatch: Bool? = nil
    ) throws {
        try audit(
            tx, effects, type, userId: record.userId, registrationId: registrationId ?? record.registrationId, deviceId: caller?.deviceId,
            at: at, installationId: caller?.installationId, operationId: record.id, dataMismatch: dataMismatch)
        effects.append(.operationChanged(try record.operation()))
        operationDueCache.invalidate()
    }

    // MARK: time-driven expiry

    /// Expires the user's pending operations whose time is up; returns every one that was pending, oldest first, as it is now.
    private func expireDueOperations(_ tx: StoreTransaction, _ effects: Effects, of userId: String) throws -> [OperationRecord] {
        var pending = try tx.fetchAll(OperationRecord.pendingOf, userId)
        for index in pending.indices { try settle(tx, effects, &pending[index]) }
        return pending
    }

    /// When the next pending operation expires (nil: none).
    func operationsNextDue() throws -> UnixTime? {
        try operationDueCache.get(nowMilliseconds: clock.nowMilliseconds) {
            try inspect { tx in
                try tx.minimum(
                    OperationRecord.self, OperationRecord.Columns.expiresAt,
                    where: [.equals(OperationRecord.Columns.status, OperationStatus.pending.rawValue)])
            }
        }
    }

    /// Expires every pending operation whose time is up, each announced once.
    func runDueOperationExpiries() throws {
        guard let due = try operationsNextDue(), due <= now else { return }
        try transact { tx, effects in
            let expired = try tx.fetchAll(
                OperationRecord.self,
                where: [
                    .equals(OperationRecord.Columns.status, OperationStatus.pending.rawValue),
                    StoreFilter(OperationRecord.Columns.expiresAt, .lessOrEqual, .int(now)),
                ])
            for var record in expired { try settle(tx, effects, &record) }
        }
        operationDueCache.invalidate()
    }
}
