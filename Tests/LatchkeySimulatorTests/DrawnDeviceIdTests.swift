import LatchkeyContract
import LatchkeySimulator
import LatchkeyTestSupport
import Testing

/// A device created without a `deviceId` gets a drawn one, checked with COMMIT (no read of its own);
/// one already taken is never handed out: another is drawn.
@Suite struct DrawnDeviceIdTests {
    @Test func aDrawnIdAlreadyTakenIsDrawnAgain() throws {
        // Two systems on one seed draw the same ids in the same order.
        let drawn = try makeSystem(seed: 7).devices.create(NewDevice())
        let system = try makeSystem(seed: 7)
        // The id the next draw gives, taken first by a device that names it (naming draws nothing).
        #expect(try system.devices.create(NewDevice(deviceId: drawn)) == drawn)
        let next = try system.devices.create(NewDevice())
        #expect(next != drawn && next.hasPrefix("dev"))
    }
}
