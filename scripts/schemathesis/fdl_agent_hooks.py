"""schemathesis hooks for a run against a running fdl agent: what the run adds stays harmless.

Every request body's download fields are rewritten before it is sent (the checks see the request
as sent, so it is still judged against the document):
- an absolute "destination" becomes a file in FDL_SCHEMATHESIS_DIR/out (its slashes and dots
  replaced), so nothing is written outside the run's own directory;
- a "url" or mirror with a host is pointed at 127.0.0.1:1 (nothing listens there: refused at
  once), and a file: URL at a file in FDL_SCHEMATHESIS_DIR/in, so no download reaches the
  network, another local server, or a file of the machine;
- a "notify" webhook is pointed at 127.0.0.1:1 as a url is, and a "notify" command that is not
  blank becomes "true", so no generated command line is ever run.
Values of other types are left as generated: a wrong type is what a negative case tests.
"""
import hashlib
import os
from urllib.parse import urlsplit, urlunsplit

import schemathesis

SCRATCH = os.environ["FDL_SCHEMATHESIS_DIR"]


def _url(value):
    if not isinstance(value, str):
        return value
    try:
        parts = urlsplit(value)
    except ValueError:
        return value
    if parts.scheme.lower() == "file":
        name = hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()
        return "file://" + SCRATCH + "/in/" + name
    if parts.scheme and (parts.netloc or "@" in value or "//" in value):
        return urlunsplit((parts.scheme, "127.0.0.1:1", parts.path, parts.query, parts.fragment))
    return value


def _destination(value):
    if isinstance(value, str) and value.startswith("/"):
        return SCRATCH + "/out/d_" + value[1:].replace("/", "_").replace(".", "_")
    return value


def _request(item):
    if isinstance(item, dict):
        if "url" in item:
            item["url"] = _url(item["url"])
        if "destination" in item:
            item["destination"] = _destination(item["destination"])
        if isinstance(item.get("mirrors"), list):
            item["mirrors"] = [_url(mirror) for mirror in item["mirrors"]]
        notify = item.get("notify")
        if isinstance(notify, dict):
            if "webhook" in notify:
                notify["webhook"] = _url(notify["webhook"])
            if isinstance(notify.get("command"), str) and notify["command"].strip():
                notify["command"] = "true"
    return item


@schemathesis.hook
def before_call(context, case, kwargs):
    if isinstance(case.body, list):
        case.body = [_request(item) for item in case.body]
    elif isinstance(case.body, dict):
        case.body = _request(case.body)
