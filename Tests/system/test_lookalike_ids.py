"""Ids and names compare byte for byte, as the stores compare them: Swift's == takes "K" and U+212A KELVIN SIGN, or "é" and "e" +
U+0301, for one string. Found by an audit of identifiers and a review of the fixes; each of these was taken for its look-alike."""
from lkharness import pin

KELVIN = "\u212a"
MANUAL = ["--in-memory", "--clock", "manual"]


def test_an_activation_code_bound_to_a_device_is_not_another_devices_that_looks_alike(spawn):
    lk = spawn(*MANUAL)
    lk.ok("admin/createUser", userId="kay")
    code = lk.ok("admin/createActivationCode", userId="kay")["activationCode"]
    for device in ("K1", KELVIN + "1"):
        lk.ok("device/create", deviceId=device)
    lk.ok("activation/start", deviceId="K1", activationCode=code)
    assert lk.err("activation/start", deviceId=KELVIN + "1", activationCode=code)["data"]["reason"] == "activationCodeInvalid"
    assert lk.ok("activation/finish", deviceId="K1", authParameter=pin("1234"))["registrationId"]


def test_a_template_parameter_fills_only_the_placeholder_of_its_own_name(spawn):
    lk = spawn(*MANUAL)
    lk.ok("admin/createUser", userId="kay")
    lk.ok("admin/configureOperationTemplate", name="t", title="T", message="M", data="A1*T${K}")
    error = lk.err("admin/createOperation", userId="kay", template="t", parameters={KELVIN: "100"})
    assert error["code"] == -32602 and {e["path"] for e in error["data"]["errors"]} == {"parameters"}, error
    assert lk.ok("admin/createOperation", userId="kay", template="t", parameters={"K": "100"})["data"] == "A1*T100"


def test_a_redirect_url_starts_with_a_prefix_byte_for_byte(spawn):
    lk = spawn(*MANUAL)
    lk.ok("admin/configureApplication", applicationId="default", redirectUrlPrefixes=["https://app.example/K"])
    lk.ok("admin/createUser", userId="kay", email="kay@example.com")
    error = lk.err("reset/requestPasswordReset", email="kay@example.com", redirectUrl="https://app.example/" + KELVIN + "x")
    assert error["code"] == -32602, error
    assert lk.ok("reset/requestPasswordReset", email="kay@example.com", redirectUrl="https://app.example/Kx") == {}


def test_an_id_longer_than_a_new_one_may_be_is_looked_up_not_refused(spawn):
    # Ids are made at most 256 characters long; one a version before this made longer stays reachable, so a lookup takes any.
    lk = spawn(*MANUAL)
    error = lk.err("admin/createActivationCode", userId="x" * 300)
    assert error["data"] == {"reason": "notFound", "kind": "user"}, error
    assert lk.err("admin/createUser", userId="x" * 257)["code"] == -32602
