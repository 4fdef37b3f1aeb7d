"""``citesift mcp``: the library's tools for LLM hosts over the Model Context Protocol.

A thin face, as the HTTP API is: each tool calls the library function the command line
calls. The ``mcp`` SDK is imported only when a server is built (``run.serve_mcp``).
"""
