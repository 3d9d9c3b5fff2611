#!/usr/bin/env python3
"""Refresh app/data/datacenter-ranges.txt, the offline list of hosting,
datacenter and cloud address ranges behind the DATACENTER fraud signal.

The machines that build and run the service reach no website, only the
package registries, so the ranges come from a package published on PyPI:
`iporigin` (MIT), whose wheel bundles a table compiled from the providers'
own published feeds (AWS, Google, Azure, Oracle, DigitalOcean, Linode,
Vultr, GitHub, Cloudflare, Fastly) and from CC0-1.0 community lists (Hetzner,
OVHcloud, Scaleway, Alibaba, Tencent, Huawei, IBM, Leaseweb, ...).

What this script does:

1. `pip download iporigin --no-deps --only-binary=:all:` into a temporary
   directory (a wheel only, so no code of the package is run, and nothing is
   installed anywhere). `--package-version` pins a release; `--wheel` reads
   a wheel already on disk instead.
2. Reads iporigin/data/ranges.bin from the wheel with its own parser (the
   format is a small header, the labels, then sorted disjoint start/end
   pairs), and the licence and NOTICE from the wheel's metadata.
3. Keeps the kinds that mean "a machine, not a home line" (hosting, cdn and
   declared crawlers by default), leaves out consumer VPN exits (Apple
   Private Relay carries ordinary iPhone users) and Tor, and by default leaves
   out the providers that iporigin took from repositories with no licence
   file (see --include-unverified).
4. The package's table is a disjoint partition in which the narrowest range
   wins, so a crawler, a Tor exit or a left-out provider sitting inside, say,
   an AWS block punches a hole in it. A run of such ranges (never VPN exits)
   enclosed on both sides by the same kept hosting/CDN provider is folded
   back into that provider, so AWS stays whole instead of being cut into tens
   of thousands of pieces around each crawler address. Crawler ranges not
   enclosed that way keep their own token (googlebot, gptbot, meta, ...).
5. Turns the ranges into CIDRs, merges each provider's overlapping and
   adjacent ones (ipaddress.collapse_addresses), removes every private,
   loopback, link-local, multicast, reserved, shared, benchmarking and
   documentation range (192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24 and
   2001:db8::/32 among them), and writes one "<cidr>\\t<provider>" line per
   range, IPv4 then IPv6, by network address, under a "# " header.

Standard library only. Deterministic for a given package version: only the
"Generated" header line changes between runs (set SOURCE_DATE_EPOCH to pin it).

    python3 scripts/refresh-datacenter-ranges.py
    python3 scripts/refresh-datacenter-ranges.py --package-version 1.1.2
    python3 scripts/refresh-datacenter-ranges.py --wheel /tmp/iporigin-1.1.2-py3-none-any.whl
"""

from __future__ import annotations

import argparse
import datetime as dt
import email.parser
import ipaddress
import os
import re
import struct
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

PACKAGE = "iporigin"
DATA_MEMBER = "iporigin/data/ranges.bin"
REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUTPUT = REPO_ROOT / "app" / "data" / "datacenter-ranges.txt"
DEFAULT_KINDS = ("hosting", "cdn", "bot")
KNOWN_KINDS = ("hosting", "cdn", "bot", "vpn", "tor")
DEFAULT_MAX_BYTES = 1_500_000

# ranges.bin, format version 1 (iporigin/_data.py in the package):
# header magic, format version, built_at (unix seconds), label count,
# IPv4 count, IPv6 count; then each label as <u16 length><"provider\tkind">;
# then IPv4 records <u32 start, u32 end, u16 label>; then IPv6 records
# <16-byte start, 16-byte end, u16 label>. Little-endian, ranges inclusive,
# sorted and disjoint within each family.
MAGIC = b"IPORIGIN"
FORMAT_VERSION = 1
HEADER = struct.Struct("<8sHQHII")
V4_RECORD = struct.Struct("<IIH")
V6_RECORD = struct.Struct("<16s16sH")

# Short tokens for the provider names the package uses. A name not listed
# here gets its letters and digits, lowercased ("Foo Cloud" -> "foocloud").
TOKENS = {
    "Amazon AWS": "aws",
    "Google Cloud": "gcp",
    "Google": "google",
    "Microsoft Azure": "azure",
    "Oracle Cloud": "oracle",
    "DigitalOcean": "digitalocean",
    "Linode": "linode",
    "Vultr": "vultr",
    "GitHub": "github",
    "Cloudflare": "cloudflare",
    "Fastly": "fastly",
    "Hetzner": "hetzner",
    "OVHcloud": "ovh",
    "Scaleway": "scaleway",
    "Alibaba Cloud": "alibaba",
    "Tencent Cloud": "tencent",
    "Huawei Cloud": "huawei",
    "IBM Cloud": "ibm",
    "Leaseweb": "leaseweb",
    "UpCloud": "upcloud",
    "Rackspace": "rackspace",
    "Akamai": "akamai",
    "Gcore": "gcore",
    "Contabo": "contabo",
    "Common Crawl": "commoncrawl",
    "Internet Archive": "internetarchive",
    "Apple Private Relay": "appleprivaterelay",
}

# iporigin's NOTICE, section 3: lists taken from repositories that publish no
# licence, used on a permission the package records as verbal ("evidence: <to
# be added>"). Left out unless --include-unverified. Akamai is here because
# the package mixes "additional Akamai ranges" from such a repository into its
# CC0 Akamai ranges under one label, so the two cannot be told apart. The
# NOTICE is read as well, so a provider added there later is left out too.
UNVERIFIED = {
    "Cogent", "DataCamp", "Contabo", "Vercel", "CDN77", "GleSYS", "Scalaxy",
    "GTHost", "Melbicom", "BuyVM", "BunnyCDN", "Akamai",
}

# Providers the service cares most about: never the first to go when the
# file has to be cut down to --max-bytes.
PRIORITY = (
    "aws", "gcp", "google", "azure", "oracle", "digitalocean", "linode",
    "ovh", "hetzner", "vultr", "cloudflare", "alibaba", "tencent", "scaleway",
    "contabo",
)

# Never a datacenter range, whatever a source says: IANA special-purpose
# space (RFC 6890 and successors) and everything outside global unicast.
NOT_DATACENTER = [ipaddress.ip_network(n) for n in (
    "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8",
    "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24", "192.0.2.0/24",
    "192.31.196.0/24", "192.52.193.0/24", "192.88.99.0/24", "192.168.0.0/16",
    "192.175.48.0/24", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24",
    "224.0.0.0/4", "240.0.0.0/4",
    # IPv6: only 2000::/3 is global unicast; inside it, the IETF protocol
    # assignments (2001::/23: Teredo, benchmarking 2001:2::/48, ORCHID),
    # documentation (2001:db8::/32, 3fff::/20), 6to4 (2002::/16) and the
    # AS112 and other special blocks.
    "::/3", "4000::/2", "8000::/1", "2001::/23", "2001:db8::/32", "2002::/16",
    "2620:4f:8000::/48", "3fff::/20",
)]

GLOBAL_V6 = ipaddress.ip_network("2000::/3")


class Failure(Exception):
    """A clear, expected failure: printed as one line, non-zero exit."""

    def __init__(self, message: str, code: int):
        super().__init__(message)
        self.code = code


# ---------------------------------------------------------------- fetching


def download_wheel(version: str | None, into: Path) -> Path:
    spec = f"{PACKAGE}=={version}" if version else PACKAGE
    command = [
        sys.executable, "-m", "pip", "download", spec,
        "--no-deps", "--only-binary=:all:", "--no-input",
        "--disable-pip-version-check", "--dest", str(into),
    ]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise Failure(f"could not run pip to download {spec}: {exc}", 3) from exc
    if done.returncode != 0:
        tail = " | ".join((done.stderr or done.stdout).strip().splitlines()[-3:])
        raise Failure(f"pip could not download {spec} from PyPI: {tail}", 3)
    wheels = sorted(into.glob(f"{PACKAGE}-*.whl"))
    if len(wheels) != 1:
        raise Failure(f"pip download {spec} left no single {PACKAGE} wheel in {into}", 3)
    return wheels[0]


# ---------------------------------------------------------------- reading


def read_wheel(path: Path) -> tuple[dict, bytes, str]:
    """The wheel's metadata (name, version, licence), ranges.bin and NOTICE."""
    try:
        wheel = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as exc:
        raise Failure(f"{path} is not a readable wheel: {exc}", 4) from exc
    with wheel:
        names = wheel.namelist()
        metadata_names = [n for n in names if re.fullmatch(r"[^/]+\.dist-info/METADATA", n)]
        if not metadata_names or DATA_MEMBER not in names:
            raise Failure(
                f"{path.name} has no {DATA_MEMBER} or no METADATA: the package "
                "layout changed, so this script needs updating", 4)
        meta = email.parser.Parser().parsestr(
            wheel.read(metadata_names[0]).decode("utf-8", "replace"), headersonly=True)
        if (meta.get("Name") or "").lower() != PACKAGE:
            raise Failure(f"{path.name} is not the {PACKAGE} package", 4)
        blob = wheel.read(DATA_MEMBER)
        notice = ""
        for name in names:
            if re.fullmatch(r"[^/]+\.dist-info/(licenses/)?NOTICE(\.\w+)?", name):
                notice = wheel.read(name).decode("utf-8", "replace")
                break
    info = {
        "name": meta.get("Name"),
        "version": meta.get("Version"),
        "licence": meta.get("License-Expression") or meta.get("License") or "unknown",
    }
    return info, blob, notice


def parse_ranges(blob: bytes) -> tuple[int, list, dict]:
    """(built_at, labels, {4: [(start, end, label)], 6: [...]}) from ranges.bin."""
    try:
        magic, version, built_at, n_labels, n_v4, n_v6 = HEADER.unpack_from(blob, 0)
        if magic != MAGIC:
            raise ValueError("bad magic")
        if version != FORMAT_VERSION:
            raise ValueError(f"format version {version}, this script reads {FORMAT_VERSION}")
        offset = HEADER.size
        labels = []
        for _ in range(n_labels):
            (length,) = struct.unpack_from("<H", blob, offset)
            offset += 2
            text = blob[offset:offset + length].decode("utf-8")
            offset += length
            provider, tab, kind = text.partition("\t")
            if not tab or not provider:
                raise ValueError(f"bad label {text!r}")
            labels.append((provider, kind))
        ranges = {4: [], 6: []}
        for _ in range(n_v4):
            start, end, label = V4_RECORD.unpack_from(blob, offset)
            offset += V4_RECORD.size
            ranges[4].append((start, end, label))
        for _ in range(n_v6):
            start, end, label = V6_RECORD.unpack_from(blob, offset)
            offset += V6_RECORD.size
            ranges[6].append((int.from_bytes(start, "big"), int.from_bytes(end, "big"), label))
        if offset != len(blob):
            raise ValueError(f"{len(blob) - offset} trailing bytes")
        for family, rows in ranges.items():
            top = (1 << (32 if family == 4 else 128)) - 1
            previous_end = -1
            for start, end, label in rows:
                if not (previous_end < start <= end <= top) or label >= len(labels):
                    raise ValueError(f"IPv{family} ranges not sorted, disjoint and labelled")
                previous_end = end
    except (struct.error, UnicodeDecodeError, ValueError) as exc:
        raise Failure(f"cannot parse {DATA_MEMBER}: {exc}", 4) from exc
    if not ranges[4]:
        raise Failure(f"{DATA_MEMBER} holds no IPv4 range", 4)
    return built_at, labels, ranges


def unverified_from_notice(notice: str) -> set[str]:
    """Provider names in the NOTICE's 'Used with the maintainer's permission'."""
    match = re.search(r"Used with the maintainer's permission(.*?)(?:\nTODO|\nSources deliberately|\Z)",
                      notice, re.S)
    if not match:
        return set()
    found = set()
    for used in re.findall(r"Used for:(.*?)(?:\n\s*\n|\Z)", match.group(1), re.S):
        for name in re.split(r"[,\n]", used):
            name = " ".join(name.split())
            if not name:
                continue
            if name.lower().startswith("additional "):
                name = name[len("additional "):].rsplit(" ranges", 1)[0]
            found.add(name)
    return found


# ---------------------------------------------------------------- selecting


def token_for(provider: str) -> str:
    token = TOKENS.get(provider) or re.sub(r"[^a-z0-9]", "", provider.lower())
    if not token:
        raise Failure(f"provider name {provider!r} gives no token", 4)
    return token


def select(ranges: dict, labels: list, kinds: set, excluded: set) -> tuple[dict, int]:
    """{family: {token: [(start, end)]}} and how many ranges were folded back.

    Hosting and CDN ranges of kept providers stay as they are. Every other
    range (a crawler, Tor, a left-out provider) that sits, alone or in a run
    of such ranges, between two touching ranges of the same kept hosting or
    CDN provider is folded back into that provider: the package carved it
    out of that provider's block. What is not folded keeps its own token if
    its kind is kept, and is dropped otherwise. VPN exits are never folded.
    """
    out = {4: {}, 6: {}}
    folded = 0
    for family, rows in ranges.items():
        # (token it keeps on its own or None, whether it may be folded)
        marks = []
        for start, end, label in rows:
            provider, kind = labels[label]
            own = token_for(provider) if kind in kinds and provider not in excluded else None
            if kind == "vpn":
                marks.append((own, False))
            elif own and kind in ("hosting", "cdn"):
                marks.append((own, False))
            else:
                marks.append((own, True))
        i = 0
        n = len(rows)
        while i < n:
            own, foldable = marks[i]
            if not foldable:
                if own:
                    out[family].setdefault(own, []).append(rows[i][:2])
                i += 1
                continue
            j = i
            while j + 1 < n and marks[j + 1][1] and rows[j + 1][0] == rows[j][1] + 1:
                j += 1
            before = after = None
            if i > 0 and not marks[i - 1][1] and rows[i - 1][1] + 1 == rows[i][0]:
                before = marks[i - 1][0]
            if j + 1 < n and not marks[j + 1][1] and rows[j][1] + 1 == rows[j + 1][0]:
                after = marks[j + 1][0]
            enclosing = before if before and before == after else None
            for k in range(i, j + 1):
                token = enclosing or marks[k][0]
                if token:
                    out[family].setdefault(token, []).append(rows[k][:2])
            if enclosing:
                folded += j - i + 1
            i = j + 1
    return out, folded


def to_networks(family: int, spans: list) -> list:
    cls = ipaddress.IPv4Address if family == 4 else ipaddress.IPv6Address
    nets = []
    for start, end in spans:
        nets.extend(ipaddress.summarize_address_range(cls(start), cls(end)))
    return list(ipaddress.collapse_addresses(nets))


def drop_special(nets: list) -> tuple[list, int]:
    """Remove every special-purpose block from the networks; count what went."""
    removed = 0
    work = list(nets)
    for bogon in NOT_DATACENTER:
        kept = []
        for net in work:
            if net.version != bogon.version or not net.overlaps(bogon):
                kept.append(net)
            elif net.subnet_of(bogon):
                removed += 1
            else:  # bogon is inside net: cut it out
                removed += 1
                kept.extend(net.address_exclude(bogon))
        work = kept
    final = []
    for net in work:
        special = (net.is_private or net.is_loopback or net.is_link_local or net.is_multicast
                   or net.is_reserved or net.is_unspecified
                   or (net.version == 6 and not net.subnet_of(GLOBAL_V6)))
        if special:
            removed += 1
        else:
            final.append(net)
    return list(ipaddress.collapse_addresses(final)), removed


# ---------------------------------------------------------------- writing


def render(header: list, lines: list) -> str:
    return "".join(f"# {h}\n" for h in header) + "".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description="Refresh the offline hosting/datacenter/cloud range list from PyPI.")
    parser.add_argument("--package-version", help=f"the {PACKAGE} release to use (default: newest)")
    parser.add_argument("--wheel", type=Path, help=f"read this {PACKAGE} wheel instead of downloading")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help="file to write")
    parser.add_argument("--kinds", default=",".join(DEFAULT_KINDS),
                        help=f"comma-separated kinds to keep, of {','.join(KNOWN_KINDS)} "
                             f"(default: {','.join(DEFAULT_KINDS)})")
    parser.add_argument("--include-unverified", action="store_true",
                        help="also keep providers the package took from repositories "
                             "without a licence (Contabo, Cogent, Vercel, Akamai, ...)")
    parser.add_argument("--max-bytes", type=int, default=DEFAULT_MAX_BYTES,
                        help="largest output file; past it, the smallest providers are left out (named in the header)")
    args = parser.parse_args(argv)

    kinds = {k.strip() for k in args.kinds.split(",") if k.strip()}
    if not kinds or not kinds <= set(KNOWN_KINDS):
        raise Failure(f"--kinds must be a subset of {','.join(KNOWN_KINDS)}", 2)

    with tempfile.TemporaryDirectory(prefix="dc-ranges-") as tmp:
        wheel = args.wheel if args.wheel else download_wheel(args.package_version, Path(tmp))
        info, blob, notice = read_wheel(wheel)
    if args.package_version and info["version"] != args.package_version:
        raise Failure(f"asked for {PACKAGE} {args.package_version}, got {info['version']}", 4)
    built_at, labels, ranges = parse_ranges(blob)

    providers = {p for p, _ in labels}
    unverified = (UNVERIFIED | unverified_from_notice(notice)) & providers
    excluded = set() if args.include_unverified else unverified
    by_family, folded = select(ranges, labels, kinds, excluded)

    kind_of = {}
    for provider, kind in labels:
        kind_of.setdefault(token_for(provider), kind)

    # networks per family and token, special-purpose space removed
    nets = {4: {}, 6: {}}
    special_removed = 0
    for family, spans_by_token in by_family.items():
        for token, spans in spans_by_token.items():
            kept, removed = drop_special(to_networks(family, spans))
            special_removed += removed
            if kept:
                nets[family][token] = kept

    def weight(token):
        v4 = sum(n.num_addresses for n in nets[4].get(token, ()))
        v6 = sum(n.num_addresses >> 64 for n in nets[6].get(token, ()))
        return (token in PRIORITY, v4, v6, token)

    # A unit is one provider's ranges of one family. When everything does not
    # fit in --max-bytes, units are taken in order (the providers in PRIORITY
    # first, then by IPv4 addresses covered; a provider's IPv4 before its
    # IPv6) and a unit that does not fit is left out and named in the header.
    units = sorted(((t, f) for f in (4, 6) for t in nets[f]),
                   key=lambda u: (weight(u[0]), u[1] == 4), reverse=True)
    unit_bytes = {u: sum(len(f"{n}\t{u[0]}\n") for n in nets[u[1]][u[0]]) for u in units}

    source_line = (f"Source: PyPI package {info['name']} {info['version']}, licence "
                   f"{info['licence']} (code); data from the providers' own published feeds "
                   "and CC0-1.0 community lists, as recorded in the package's NOTICE.")
    built = dt.datetime.fromtimestamp(built_at, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    now = (dt.datetime.fromtimestamp(int(epoch), dt.timezone.utc) if epoch
           else dt.datetime.now(dt.timezone.utc))
    generated = now.strftime("%Y-%m-%dT%H:%M:%SZ")

    def compose(kept_units, left_units):
        rows = []
        for token, family in kept_units:
            for net in nets[family][token]:
                rows.append((family, int(net.network_address), net.prefixlen, token, net))
        rows.sort(key=lambda r: r[:4])
        # the source is disjoint, so the output must be too
        for a, b in zip(rows, rows[1:]):
            if a[0] == b[0] and a[4].overlaps(b[4]):
                raise Failure(f"overlapping output ranges {a[4]} ({a[3]}) and {b[4]} ({b[3]})", 4)
        n4 = sum(1 for r in rows if r[0] == 4)
        n6 = len(rows) - n4
        v4_addresses = sum(r[4].num_addresses for r in rows if r[0] == 4)
        tokens = sorted({t for t, _ in kept_units})
        by_kind = {}
        for token in tokens:
            by_kind.setdefault(kind_of.get(token, "?"), []).append(token)
        left_kinds = sorted(set(KNOWN_KINDS) - kinds)
        header = [
            "Hosting, datacenter and cloud IP address ranges, for the DATACENTER fraud signal.",
            "Generated file, do not edit by hand: refresh it with",
            "  python3 scripts/refresh-datacenter-ranges.py",
            "(options: --package-version X to pin a release, --include-unverified, --kinds; see --help).",
            "Format: one range per line, '<cidr><TAB><provider>', IPv4 then IPv6, by network address.",
            "Ranges do not overlap; each provider's adjacent and overlapping ranges are merged.",
            source_line,
            f"Package dataset built {built}; generated {generated} (UTC).",
            f"Ranges: {len(rows)} ({n4} IPv4, {n6} IPv6), {len(tokens)} providers, "
            f"{v4_addresses} IPv4 addresses.",
        ]
        for kind in sorted(by_kind):
            header.append(f"Kind {kind}: {', '.join(by_kind[kind])}.")
        header.append(
            "Left out: kinds " + (", ".join(left_kinds) or "none")
            + " (consumer VPN exits such as Apple Private Relay carry ordinary users);"
            " VPN exits are never folded into the provider around them.")
        if excluded:
            header.append(
                "Left out, licence unverified (taken by the package from repositories with no "
                "licence file): " + ", ".join(sorted(excluded)) + ".")
        header.append(
            f"{folded} crawler or left-out ranges that the package had carved out of one kept "
            "provider's block were folded back into it.")
        header.append(
            "Private, loopback, link-local, multicast, reserved, shared, benchmarking and "
            f"documentation space removed ({special_removed} blocks cut or dropped).")
        if left_units:
            left_tokens = {t for t, _ in left_units}
            named = []
            for token in sorted(left_tokens):
                families = sorted(f for t, f in left_units if t == token)
                whole = all((token, f) in left_units for f in (4, 6) if token in nets[f])
                named.append(token if whole else f"{token} (IPv{families[0]})")
            header.append(f"Left out to stay under {args.max_bytes} bytes: " + ", ".join(named) + ".")
        lines = [f"{r[4]}\t{r[3]}\n" for r in rows]
        return render(header, lines), len(rows), n4, n6, len(tokens)

    reserve = 4096
    for _ in range(5):
        kept_units, left_units, used = [], [], 0
        for unit in units:
            if used + unit_bytes[unit] <= args.max_bytes - reserve:
                kept_units.append(unit)
                used += unit_bytes[unit]
            else:
                left_units.append(unit)
        text, total, n4, n6, n_tokens = compose(kept_units, left_units)
        size = len(text.encode("utf-8"))
        if size <= args.max_bytes:
            break
        reserve = size - used + 256
    else:
        raise Failure(f"could not fit the list in --max-bytes {args.max_bytes}", 4)

    if n4 == 0:
        raise Failure("no IPv4 range left after filtering: refusing to write an empty list", 4)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    temporary = args.output.with_suffix(args.output.suffix + ".tmp")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(args.output)
    shown = args.output.relative_to(REPO_ROOT) if args.output.is_relative_to(REPO_ROOT) else args.output
    print(f"wrote {shown}: {total} ranges ({n4} IPv4, {n6} IPv6) from {n_tokens} providers, "
          f"{size} bytes, from {info['name']} {info['version']} ({info['licence']}), "
          f"dataset built {built}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Failure as failure:
        print(f"refresh-datacenter-ranges: error: {failure}", file=sys.stderr)
        sys.exit(failure.code)
