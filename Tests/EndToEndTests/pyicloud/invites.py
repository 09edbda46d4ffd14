"""pyicloud's CloudKitInvitesClient against `ck serve` (sharing.md §10.6, docs/serve.md).

Run by PyiCloudConformanceTests.swift with one argument, a JSON object:
  {"base": "http://127.0.0.1:PORT/database/1/<container>/development", "token": "<bob's web auth token>",
   "guid": "<short GUID>", "zone": "Lists", "owner": "<owner's userRecordName>", "type": "Item", "root": "list-1"}

It prints one JSON object of what the server answered at each step (resolve, accept, the shared zones, a query, a
lookup and a zone feed in the shared database) and "errors": every step that raised, with the payload pyicloud
attached. The Swift test holds the expected values; this script only observes.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import requests

from pyicloud.common.cloudkit import CKQueryObject, CKZoneChangesZoneReq, CKZoneID, CKZoneIDReq
from pyicloud.services.invites.client import CloudKitInvitesClient

from steps import recorder

cfg = json.loads(sys.argv[1])
out: dict[str, Any] = {"errors": []}


step = recorder(out)


# Bob's own token in base_params, as a second user would hold it (web-services.md §3.1).
client = CloudKitInvitesClient(cfg["base"], requests.Session(), {"remapEnums": True, "ckWebAuthToken": cfg["token"]})
ZONE = CKZoneIDReq(zoneName=cfg["zone"], ownerRecordName=cfg["owner"])


def metadata(result: dict[str, Any]) -> dict[str, Any]:
    keep = ["databaseScope", "participantType", "participantStatus", "participantPermission", "rootRecordName",
            "serverErrorCode"]
    m = {k: result.get(k) for k in keep if k in result}
    m["owner"] = (result.get("ownerIdentity") or {}).get("userRecordName")
    m["zone"] = (result.get("zoneID") or {}).get("zoneName")
    return m


@step("resolve")
def _():
    r = client.resolve([cfg["guid"], "0nosuchshare"])
    out["resolve"] = [metadata(x) for x in r.get("results", [])]


@step("sharedZonesBeforeAccept")
def _():
    out["sharedZonesBefore"] = [z.zoneID.zoneName for z in client.zones_list("shared").zones]


@step("accept")
def _():
    r = client.accept([cfg["guid"]])
    out["accept"] = [metadata(x) for x in r.get("results", [])]


@step("sharedZones")
def _():
    out["sharedZones"] = [[z.zoneID.zoneName, z.zoneID.ownerRecordName] for z in client.zones_list("shared").zones]


@step("query")
def _():
    r = client.query("shared", query=CKQueryObject(recordType=cfg["type"]), zone_id=ZONE)
    out["query"] = sorted(getattr(x, "recordName", None) for x in r.records)


@step("lookup")
def _():
    r = client.lookup("shared", [cfg["root"]], zone_id=ZONE)
    out["lookup"] = [getattr(x, "recordName", None) for x in r.records]
    dumped = [x.model_dump(by_alias=True, mode="json") for x in r.records]
    out["lookupShortGUID"] = [d.get("shortGUID") for d in dumped]


@step("changes")
def _():
    r = client.changes("shared", zone_req=CKZoneChangesZoneReq(zoneID=CKZoneID(zoneName=cfg["zone"], ownerRecordName=cfg["owner"])))
    out["changes"] = sorted(getattr(x, "recordName", None) for z in r.zones for x in (z.records or []))


print(json.dumps(out, default=str))
