"""The functions an ELF binary defines, by name, with their addresses (`nm --defined-only`: text and
weak symbols; the first address of a name that appears twice). Shared by scripts/link_order.py, which
orders them, and scripts/check-link-order, which checks where they landed."""
import subprocess


def function_addresses(binary):
    listed = subprocess.run(["nm", "--defined-only", binary], capture_output=True, text=True, check=True).stdout
    addresses = {}
    for parts in (line.split() for line in listed.splitlines()):
        if len(parts) == 3 and parts[1] in "tTwW":
            addresses.setdefault(parts[2], int(parts[0], 16))
    return addresses
