"""Drives the release before this wave (commit 33b6b44) to write the store release3_store.sql dumps: make_release3_store.py BINARY DB."""
import sys, json, subprocess, os
OLD = sys.argv[1]  # the release's binary (33b6b44 needs two compile fixes: a try, an argument too many)
p = subprocess.Popen([OLD, "--db", sys.argv[2]], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
n = 0
def call(m, params):
    global n; n += 1
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": n, "method": m, "params": params}) + "\n"); p.stdin.flush()
    r = json.loads(p.stdout.readline())
    if "error" in r: raise SystemExit(f"{m}: {r['error']}")
    return r["result"]
u = call("admin/createUser", {"userId": "alice", "email": "alice@example.com", "password": "correct horse"})["userId"]
call("device/create", {"deviceId": "phone", "biometry": "faceId"})
code = call("admin/createActivationCode", {"userId": u})["activationCode"]
call("activation/start", {"deviceId": "phone", "activationCode": code})
reg = call("activation/finish", {"deviceId": "phone", "authParameter": {"method": "pin", "pin": "1357"}})["registrationId"]
call("authentication/start", {"deviceId": "phone"})
tok = call("authentication/finish", {"deviceId": "phone", "authParameter": {"method": "pin", "pin": "1357"}, "tokenPurpose": "addOrUpdateRecovery"})["token"]
call("recovery/startAddOrUpdate", {"deviceId": "phone", "token": tok})
call("recovery/finishAddOrUpdate", {"deviceId": "phone", "recoveryParameter": {"method": "backup", "recoveryCode": "MY-RECOVERY-CODE"}})
bak = call("device/backup", {"deviceId": "phone", "kind": "iCloud"})["backupId"]
s = call("user/login", {"email": "alice@example.com", "password": "correct horse"})["sessionId"]
o = call("passkey/creationOptions", {"sessionId": s})
call("passkey/create", {"ceremonyId": o["ceremonyId"], "credential": call("device/passkeyCreate", {"deviceId": "phone", "publicKey": o["publicKey"]})["credential"]})
call("admin/configureApplication", {"applicationId": "bank", "passkeyRpId": "bank.example", "passkeyRpName": "Bank", "passkeyOrigins": ["https://bank.example"]})
o = call("passkey/creationOptions", {"sessionId": s, "applicationId": "bank"})
bankPasskey = call("passkey/create", {"ceremonyId": o["ceremonyId"], "credential": call("device/passkeyCreate", {"deviceId": "phone", "publicKey": o["publicKey"], "origin": "https://bank.example"})["credential"]})
p.stdin.close(); p.wait()
print(json.dumps(bankPasskey))
print(json.dumps({"registrationId": reg, "backupId": bak}))
