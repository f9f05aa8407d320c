#!/usr/bin/env python3
"""Generates Python protobuf classes from the repository's proto/ tree into ./gen (gitignored).

    python generate.py [--proto-dir ../../proto] [--out gen]

protoc comes from the grpcio-tools wheel (requirements.txt), so nothing but pip is needed. Every
.proto file is compiled: messages import each other (an EventChanged carries Money, GeoPoint and
LocalizedString from marquee/common/v1). Only message classes are generated (--python_out and
--pyi_out for editors); the gRPC service stubs are not needed to read topics.
"""

import argparse
import pathlib
import shutil
import sys

from grpc_tools import protoc

HERE = pathlib.Path(__file__).resolve().parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--proto-dir", default=str(HERE.parent.parent / "proto"))
    parser.add_argument("--out", default=str(HERE / "gen"))
    args = parser.parse_args()

    proto_dir = pathlib.Path(args.proto_dir).resolve()
    out = pathlib.Path(args.out).resolve()
    files = sorted(str(p.relative_to(proto_dir)) for p in proto_dir.rglob("*.proto"))
    if not files:
        print(f"generate.py: no .proto files under {proto_dir}", file=sys.stderr)
        return 1

    # Start clean so that a removed .proto leaves no stale module behind.
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    # grpc_tools ships the well-known types (google/protobuf/*.proto) next to its module.
    well_known = pathlib.Path(protoc.__file__).resolve().parent / "_proto"
    status = protoc.main(
        [
            "grpc_tools.protoc",
            f"-I{proto_dir}",
            f"-I{well_known}",
            f"--python_out={out}",
            f"--pyi_out={out}",
            *files,
        ]
    )
    if status != 0:
        print(f"generate.py: protoc failed with status {status}", file=sys.stderr)
        return status
    print(f"generate.py: {len(files)} .proto files from {proto_dir} -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
