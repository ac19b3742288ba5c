"""Runs a Pulumi Python program under the SDK's mocks (pulumi.runtime.set_mocks) and prints, as JSON on stdout,
every resource it registers: its type token, name and inputs as the SDK sends them (the engine's camelCase names).
Usage: python pyMockRun.py <program.py> <config JSON: {"<key>": "<value>"}>. Used by test/export-programs.unit.test.ts."""
import asyncio
import json
import runpy
import sys

import pulumi
from pulumi.runtime import Mocks, set_mocks
from pulumi.runtime.stack import wait_for_rpcs

registered = []


class Record(Mocks):
    def new_resource(self, args):
        registered.append({"type": args.typ, "name": args.name, "inputs": args.inputs})
        return [f"{args.name}-id", args.inputs]

    def call(self, args):
        return {}


config = json.loads(sys.argv[2])
loop = asyncio.new_event_loop()
asyncio.set_event_loop(loop)
set_mocks(Record(), project="exported", stack="test", preview=False)
pulumi.runtime.set_all_config({f"exported:{k}": v for k, v in config.items()})
runpy.run_path(sys.argv[1], run_name="__main__")
loop.run_until_complete(wait_for_rpcs())
print(json.dumps(registered))
