"""pyicloud's CloudKitContainerClient against `ck serve` (docs/serve.md, web-services.md §12).

Run by PyiCloudConformanceTests.swift with one argument, a JSON object:
  {"base": "http://127.0.0.1:PORT/database/1/<container>/development/private",
   "zone": "Conf", "type": "Item", "count": 7, "page": 3, "changesLimit": 2,
   "cliRecord": "seed-cli", "asset": "<hex of the asset's bytes>"}

It prints one JSON object: what the server answered at each step (names, counts, whether bytes matched), and
"errors": every step that raised, with the exception and the payload pyicloud attached. The Swift test holds the
expected values; this script only observes. Each step runs even when an earlier one failed, where it can.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import requests
from pydantic import BaseModel, ValidationError

from pyicloud.common.cloudkit import (
    CKQueryObject,
    CKQuerySortBy,
    CKZoneChangesZoneReq,
    CKZoneID,
    CKZoneIDReq,
)
from pyicloud.common.cloudkit.client import CloudKitApiError, CloudKitContainerClient
from pyicloud.common.cloudkit.models import (
    CKDatabaseChangesResponse,
    CKErrorItem,
    CKFieldOpen,
    CKLookupResponse,
    CKModifyOperation,
    CKModifyResponse,
    CKQueryResponse,
    CKRecord,
    CKTombstoneRecord,
    CKZoneChangesResponse,
    CKZoneListResponse,
)

from steps import recorder

cfg = json.loads(sys.argv[1])
BASE: str = cfg["base"]
ZONE = CKZoneIDReq(zoneName=cfg["zone"])
TYPE: str = cfg["type"]
COUNT: int = cfg["count"]
out: dict[str, Any] = {"errors": []}
state: dict[str, Any] = {}


step = recorder(out)


client = CloudKitContainerClient(BASE, requests.Session(), {"remapEnums": True, "getCurrentSyncToken": True})
strict = CloudKitContainerClient(BASE, requests.Session(), {"remapEnums": True, "getCurrentSyncToken": True},
                                 validation_extra="forbid")


def names(records) -> list[str]:
    return [r.recordName for r in records]


def kinds(records) -> list[str]:
    return [type(r).__name__ for r in records]


@step("zones_list")
def _():
    zones = client.zones_list().zones
    out["zones"] = sorted(z.zoneID.zoneName for z in zones)
    out["zoneTypes"] = {z.zoneID.zoneName: z.zoneID.zoneType for z in zones}


@step("modify.create")
def _():
    ops = [
        CKModifyOperation(operationType="create", record={
            "recordName": f"item-{i}", "recordType": TYPE,
            "fields": {"title": {"value": f"title {i}", "type": "STRING"}, "n": {"value": i, "type": "INT64"}},
        })
        for i in range(COUNT)
    ]
    resp = client.modify(operations=ops, zone_id=ZONE)
    out["created"] = names(resp.records)
    out["createdKinds"] = kinds(resp.records)
    state["tags"] = {r.recordName: r.recordChangeTag for r in resp.records if isinstance(r, CKRecord)}
    out["createdTagsPresent"] = all(bool(t) for t in state["tags"].values())
    r0 = resp.records[0]
    if isinstance(r0, CKRecord):
        out["createdShape"] = {
            "recordType": r0.recordType,
            "title": r0.fields.get_value("title"),
            "titleType": r0.fields["title"].type_tag,
            "n": r0.fields.get_value("n"),
            "nType": r0.fields["n"].type_tag,
            "deleted": r0.deleted,
            "pluginFields": r0.pluginFields,
            "zoneName": r0.zoneID.zoneName if r0.zoneID else None,
            "zoneType": r0.zoneID.zoneType if r0.zoneID else None,
            "createdHasDevice": bool(r0.created and r0.created.deviceID),
            "modifiedHasUser": bool(r0.modified and r0.modified.userRecordName),
        }


@step("query.paging")
def _():
    query = CKQueryObject(recordType=TYPE, sortBy=[CKQuerySortBy(fieldName="n", ascending=True)])
    pages, seen, marker = [], [], None
    while True:
        resp = client.query(query=query, zone_id=ZONE, results_limit=cfg["page"], continuation=marker)
        pages.append(len(resp.records))
        seen += names(resp.records)
        marker = resp.continuationMarker
        if not marker or len(pages) > 50:
            break
    out["queryPages"] = pages
    out["queryNames"] = seen


@step("lookup")
def _():
    resp = client.lookup(["item-1", "no-such-record", cfg["cliRecord"]], zone_id=ZONE)
    out["lookupKinds"] = kinds(resp.records)
    out["lookupNames"] = [getattr(r, "recordName", None) for r in resp.records]
    missing = resp.records[1] if len(resp.records) > 1 else None
    out["lookupMissingCode"] = missing.serverErrorCode if isinstance(missing, CKErrorItem) else None
    cli = resp.records[2] if len(resp.records) > 2 else None
    out["lookupCliTitle"] = cli.fields.get_value("title") if isinstance(cli, CKRecord) else None


@step("modify.update")
def _():
    tag = state["tags"]["item-1"]
    op = CKModifyOperation(operationType="update", record={
        "recordName": "item-1", "recordType": TYPE, "recordChangeTag": tag,
        "fields": {"title": {"value": "renamed", "type": "STRING"}},
    })
    rec = client.modify(operations=[op], zone_id=ZONE).records[0]
    out["updatedTitle"] = rec.fields.get_value("title") if isinstance(rec, CKRecord) else None
    out["updatedKeepsN"] = rec.fields.get_value("n") if isinstance(rec, CKRecord) else None
    out["updatedTagChanged"] = isinstance(rec, CKRecord) and bool(rec.recordChangeTag) and rec.recordChangeTag != tag
    # The old tag is stale now: CloudKit answers a per-record CONFLICT inside HTTP 200, which pyicloud raises.
    stale = CKModifyOperation(operationType="update", record={
        "recordName": "item-1", "recordType": TYPE, "recordChangeTag": tag,
        "fields": {"title": {"value": "lost update", "type": "STRING"}},
    })
    try:
        client.modify(operations=[stale], zone_id=ZONE)
        out["staleUpdate"] = "accepted"
    except CloudKitApiError as exc:
        records = exc.payload.get("records") if isinstance(exc.payload, dict) else None
        item = records[0] if isinstance(records, list) and records else {}
        out["staleUpdate"] = item.get("serverErrorCode")
        out["staleUpdateKeys"] = sorted(item.keys())


@step("changes.zone")
def _():
    pages, live, gone, token = 0, [], [], None
    for zone in client.iter_changes(zone_req=CKZoneChangesZoneReq(zoneID=CKZoneID(zoneName=cfg["zone"])),
                                    results_limit=cfg["changesLimit"]):
        pages += 1
        live += [r.recordName for r in zone.records if isinstance(r, CKRecord)]
        gone += [r.recordName for r in zone.records if isinstance(r, CKTombstoneRecord)]
        token = zone.syncToken
        if pages > 100:
            break
    out["changesPages"] = pages
    out["changesLive"] = sorted(set(live))
    out["changesLiveCount"] = len(live)
    state["zoneToken"] = token


@step("modify.delete")
def _():
    victim = f"item-{COUNT - 1}"
    op = CKModifyOperation(operationType="delete", record={
        "recordName": victim, "recordType": TYPE, "recordChangeTag": state["tags"][victim]})
    rec = client.modify(operations=[op], zone_id=ZONE).records[0]
    out["deleteResult"] = {"kind": type(rec).__name__, "recordName": rec.recordName,
                           "deleted": getattr(rec, "deleted", None)}
    after = client.lookup([victim], zone_id=ZONE).records[0]
    out["deletedLookupCode"] = after.serverErrorCode if isinstance(after, CKErrorItem) else type(after).__name__


@step("changes.zone.since")
def _():
    req = CKZoneChangesZoneReq(zoneID=CKZoneID(zoneName=cfg["zone"]), syncToken=state["zoneToken"])
    resp = client.changes(zone_req=req)
    zone = resp.zones[0]
    out["sinceTombstones"] = [
        {"recordName": r.recordName, "deleted": r.deleted, "zoneName": r.zoneID.zoneName if r.zoneID else None}
        for r in zone.records if isinstance(r, CKTombstoneRecord)
    ]
    out["sinceLive"] = sorted(r.recordName for r in zone.records if isinstance(r, CKRecord))
    out["sinceMoreComing"] = zone.moreComing


@step("database_changes")
def _():
    first = client.database_changes()
    out["dbChangesZones"] = sorted(z.zoneID.zoneName for z in first.zones)
    out["dbChangesHasToken"] = bool(first.syncToken)
    out["dbChangesMoreComing"] = first.moreComing
    again = client.database_changes(sync_token=first.syncToken)
    out["dbChangesAgainZones"] = sorted(z.zoneID.zoneName for z in again.zones)


@step("asset")
def _():
    data = bytes.fromhex(cfg["asset"])
    try:
        client.upload_asset(record_type=TYPE, field_name="file", record_name="doc", data=data, zone_id=ZONE)
        out["assetRefusal"] = None
        return
    except CloudKitApiError as exc:
        out["assetRefusal"] = str(exc)
        url = exc.payload.get("url") if isinstance(exc.payload, dict) else None
    out["assetUploadURLScheme"] = url.split(":", 1)[0] if isinstance(url, str) else None
    # Finish the upload as a client on HTTPS would (§12.5): the raw bytes, no auth.
    resp = requests.post(url, data=data, headers={"Content-Type": "application/octet-stream"}, timeout=30)
    out["assetPostStatus"] = resp.status_code
    single = resp.json().get("singleFile")
    out["singleFileKeys"] = sorted(single.keys()) if isinstance(single, dict) else None
    op = CKModifyOperation(operationType="create", record={
        "recordName": "doc", "recordType": TYPE,
        "fields": {"file": {"value": single, "type": "ASSETID"}, "n": {"value": 1000, "type": "INT64"}},
    })
    saved = client.modify(operations=[op], zone_id=ZONE).records[0]
    out["assetSavedType"] = saved.fields["file"].type_tag if isinstance(saved, CKRecord) else None
    rec = client.lookup(["doc"], zone_id=ZONE).records[0]
    value = rec.fields.get_value("file") if isinstance(rec, CKRecord) else None
    download = getattr(value, "downloadURL", None)
    out["assetLookupSize"] = getattr(value, "size", None)
    out["assetHasDownloadURL"] = bool(download)
    got = client.download_asset_bytes(download.replace("${f}", "doc.bin"))
    out["assetBytesEqual"] = got == data
    out["assetBytesLength"] = len(got)


# --- Strict mode as a diff report (§12.4) ---------------------------------------------------------------------
# In the default mode pydantic keeps every key a model does not list in `model_extra`; those are exactly the keys
# strict mode rejects. Field values are validated in the default mode even under strict (pyicloud's field wrappers
# validate with their own config), so they are not walked. The claim is then checked: with those keys removed,
# strict validation must pass; anything else it rejects is an error.

def extras(value: Any, path: list) -> list[tuple[list, str]]:
    found: list[tuple[list, str]] = []
    if isinstance(value, CKFieldOpen):
        return found
    if isinstance(value, BaseModel):
        for key in (value.model_extra or {}):
            found.append((path, key))
        for name in type(value).model_fields:
            found += extras(getattr(value, name), path + [name])
    elif isinstance(value, dict):
        for k, v in value.items():
            found += extras(v, path + [k])
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found += extras(v, path + [i])
    return found


def strip(data: Any, path: list, key: str) -> None:
    node = data
    for p in path:
        node = node[p]
    node.pop(key, None)


def describe(model_name: str, path: list, key: str) -> str:
    """`CKQueryResponse: records[].created.foo`: one line per kind of key, not one per item."""
    where = ""
    for p in path:
        where += "[]" if isinstance(p, int) else ("." + p if where else p)
    return f"{model_name}: {where + '.' if where else ''}{key}"


def strict_check(name: str, model, call) -> None:
    try:
        call(strict)
        return
    except CloudKitApiError as exc:
        if not isinstance(exc.__cause__, ValidationError):
            raise
        data = exc.payload
    lenient = model.model_validate(data)
    found = extras(lenient, [])
    out["strictRejected"].update(describe(model.__name__, p, k) for p, k in found)
    for p, k in found:
        strip(data, p, k)
    try:
        model.model_validate(data, extra="forbid")
    except ValidationError as left:
        out["errors"].append({"step": f"strict.{name}", "error": "strict mode rejects more than extra keys",
                              "cause": str(left), "payload": data, "trace": ""})


out["strictRejected"] = set()
query = CKQueryObject(recordType=TYPE, sortBy=[CKQuerySortBy(fieldName="n", ascending=True)])
for label, model, call in [
    ("zones_list", CKZoneListResponse, lambda c: c.zones_list()),
    ("query", CKQueryResponse, lambda c: c.query(query=query, zone_id=ZONE, results_limit=50)),
    ("lookup", CKLookupResponse, lambda c: c.lookup(["item-0", "no-such-record", "doc"], zone_id=ZONE)),
    ("changes", CKZoneChangesResponse,
     lambda c: c.changes(zone_req=CKZoneChangesZoneReq(zoneID=CKZoneID(zoneName=cfg["zone"])))),
    ("database_changes", CKDatabaseChangesResponse, lambda c: c.database_changes()),
    ("modify", CKModifyResponse, lambda c: c.modify(operations=[CKModifyOperation(operationType="create", record={
        "recordName": "strict-1", "recordType": TYPE, "fields": {"n": {"value": 2000, "type": "INT64"}}})],
        zone_id=ZONE)),
]:
    step(f"strict.{label}")(lambda call=call, label=label, model=model: strict_check(label, model, call))

out["strictRejected"] = sorted(out["strictRejected"])
print(json.dumps(out, indent=1, sort_keys=True, default=str))
