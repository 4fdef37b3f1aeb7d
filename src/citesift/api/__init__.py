"""The HTTP API (``citesift serve``): a Firecrawl v2 compatible subset over the library.

Routes parse, call the same library functions the command line calls, and render; the
guard in front of them checks keys, rates and body sizes. FastAPI and uvicorn (the
``serve`` extra) are imported only when an app is made, so ``import citesift`` needs neither.
"""
