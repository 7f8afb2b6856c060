#!/usr/bin/env python3
"""make demo: a scripted session through the binary, one step per flow family. Exits 0 when
every step answered as expected."""
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lk import Proc

binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".build", "debug", "latchkey")
p = Proc(binary, "--in-memory", "--seed", "1", "--clock", "manual")


def step(title, value):
    print(f"  ✓ {title}: {value}")


print("Device activation and authentication")
p.call("admin/createUser", userId="alice", email="alice@example.com", password="correct horse")
code = p.call("admin/createActivationCode", userId="alice")["activationCode"]
p.call("device/create", deviceId="phone")
offer = p.call("activation/start", deviceId="phone", activationCode=code)
step("activation offers", offer["authMethodsForActivation"])
done = p.call("activation/finish", deviceId="phone", authParameter={"method": "pin", "pin": "1234"},
              tokenPurpose="addOrUpdateRecovery")
assert done["responseType"] == "activated" and done["contextContent"] is None
step("registration (an EncapActivateResult)", done["registrationId"])
started = p.call("authentication/start", deviceId="phone", clientOnly=False)
assert started["authenticationMethod"] == "pin"
assert p.call("authentication/finish", deviceId="phone", authParameter={"method": "pin", "pin": "1234"})["responseType"] == "authenticated"
p.call("authentication/start", deviceId="phone")
wrong = p.error("authentication/finish", deviceId="phone", authParameter={"method": "pin", "pin": "0000"})
assert wrong.reason == "authenticationFailed" and wrong.data["remainingAttempts"] == 4
step("a wrong PIN is counted", f"{wrong.data['remainingAttempts']} attempts left")

print("Backup-code recovery")
p.call("recovery/startAddOrUpdate", deviceId="phone", token=done["token"])
p.call("recovery/finishAddOrUpdate", deviceId="phone", recoveryParameter={"method": "backup", "recoveryCode": "plum-tree-42"})
backup = p.call("device/backup", deviceId="phone", kind="iCloud")["backupId"]
p.call("device/restore", backupId=backup, deviceId="new-phone")
assert p.call("device/isRecoveryActivated", deviceId="new-phone")["activated"]
p.call("recovery/start", deviceId="new-phone")
recovered = p.call("recovery/finish", deviceId="new-phone", recoveryParameter={"method": "backup", "recoveryCode": "plum-tree-42"},
                   authParameter={"method": "pin", "pin": "2468"})
assert recovered["registrationId"] == done["registrationId"]
assert p.error("authentication/start", deviceId="phone").reason == "registrationRemoved"
step("recovered on the new phone; the old one is refused", recovered["registrationId"])

print("Grace-period account recovery")
p.call("events/subscribe", topics=["accountRecovery"])
session = p.call("user/login", email="alice@example.com", password="correct horse")["sessionId"]
p.call("accountRecovery/start", sessionId=session)
p.call("clock/advance", seconds=72 * 3600)
status = p.call("accountRecovery/status", sessionId=session)
assert status["accountRecovery"]["state"] == 3
p.call("accountRecovery/resetPassword", sessionId=session, newPassword="battery staple")
step("grace period → insecure window → new password", [n["params"]["accountRecovery"]["state"] for n in p.notifications])

print("Identity-based onboarding")
p.call("admin/createUser", userId="bob", phoneNumber="+4520000000", birthDate="1990-05-17")
p.call("device/create", deviceId="bobs-phone", name="Bob's iPhone")
# The seed's own example: UserData(userID:, birthDate:).
p.call("onboarding/start", deviceId="bobs-phone", credentials={"userID": "bob", "birthDate": "1990-05-17"})
assert p.call("onboarding/hasActiveProcess", deviceId="bobs-phone")["active"]
otp = p.call("delivery/list", to="+4520000000")["messages"][-1]["code"]
p.call("onboarding/activate", deviceId="bobs-phone", otp=otp)
bob = p.call("activation/finish", deviceId="bobs-phone", authParameter={"method": "faceId"})
assert p.error("authentication/start", deviceId="bobs-phone").reason == "verificationPending"
p.call("admin/completeVerification", registrationId=bob["registrationId"], approved=True)
assert p.call("onboarding/status", deviceId="bobs-phone")["status"] == "finished"
assert not p.call("onboarding/hasActiveProcess", deviceId="bobs-phone")["active"]
assert p.call("admin/getRegistration", registrationId=bob["registrationId"])["name"] == "Bob's iPhone"
step("onboarded with userID + birthDate and an SMS OTP, verified; named after the device", bob["registrationId"])

print("Verification-code reset")
# The seed's redirect scheme, once the operator registers it (ReachFive's console has the list).
refused = p.error("reset/requestAccountRecovery", email="alice@example.com", redirectUrl="reachfive-clientId://account-recovery")
assert refused.data["errors"][0]["allowedPrefixes"] == ["app://"]
p.call("admin/configureApplication", applicationId="default", redirectUrlPrefixes=["app://", "reachfive-clientId://"])
p.call("events/subscribe", topics=["accountRecoveryCallback"])
p.call("reset/requestAccountRecovery", email="alice@example.com", redirectUrl="reachfive-clientId://account-recovery")
recovery = p.call("delivery/list", to="alice@example.com")["messages"][-1]
p.call("delivery/open", messageId=recovery["id"])
callback = [n for n in p.notifications if n["method"] == "reset/accountRecoveryCallback"][-1]["params"]
p.call("reset/resetPasskeys", email="alice@example.com", verificationCode=callback["verificationCode"])
step("account recovery through the seed's deep link reachfive-clientId://account-recovery", callback["link"])
p.call("clock/advance", seconds=30)
p.call("reset/requestPasswordReset", email="alice@example.com", redirectUrl="app://reset")
message = p.call("delivery/list", to="alice@example.com")["messages"][-1]
p.call("reset/updatePassword", email="alice@example.com", verificationCode=message["code"], password="a much newer password")
assert p.error("user/get", sessionId=session).reason == "userSessionInvalid"
step("password reset by emailed code; old sessions ended", message["link"])

assert p.close() == 0
print("demo: every step answered as expected")
