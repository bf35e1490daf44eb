"""A model host's side of the gateway's MCP server, with the official `mcp` SDK (pip install
mcp==2.3.0): lists the tools, searches UnicornChat, then sends a message the way a model would —
through a missing recipient and a choice — and the server asks *you* (this terminal) for the yes.

    python3 clients/python/mcp_session.py http://127.0.0.1:50060/mcp "$(intentmesh token --user diana)"
"""
import asyncio
import sys

import httpx2
from mcp import types
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client


async def ask_the_user(context, params):
    """MCP elicitation: the server asks the user, not the model."""
    answer = input(f"[the server asks you] {params.message} (y/n) ").strip().lower()
    return types.ElicitResult(action="accept", content={"confirm": answer.startswith("y")})


async def main(url, token):
    http = httpx2.AsyncClient(headers={"authorization": f"Bearer {token}"}, timeout=60)
    transport = streamable_http_client(url, http_client=http)
    async with Client(transport, mode="legacy", elicitation_callback=ask_the_user) as mcp:
        tools = (await mcp.list_tools()).tools
        print(f"{len(tools)} tools, e.g. {', '.join(tool.name for tool in tools[:4])}, …")

        found = (await mcp.call_tool("UnicornChat_SearchForMessages", {})).structured_content
        print(f"SearchForMessages: {found['status']}, {len(found['response']['payload']['messages'])} messages")

        arguments = {"content": "Are you ready for your talk?"}
        while True:
            result = (await mcp.call_tool("UnicornChat_SendMessage", arguments)).structured_content
            print(f"SendMessage({', '.join(sorted(arguments))}) → {result['status']}: {result['prompt']}")
            if result["status"] == "needs_value":  # the model asks its user; here, the answer is given
                arguments = dict(result["arguments"], recipients=[{"displayName": "Diana"}])
            elif result["status"] == "needs_choice":
                print("  options: " + ", ".join(option["displayText"] for option in result["options"]))
                arguments = dict(result["arguments"], recipients=[result["options"][0]["value"]])
            else:
                break
        if result["status"] == "done":
            sent = result["response"]["payload"]["sentMessage"]
            print(f"sent to {sent['recipients'][0]['displayName']}: {sent['content']!r}")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
