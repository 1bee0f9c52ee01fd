"""make bench: open pages following the league. Holds N connections to `GET /v1/events` of a
`vsh serve` for S seconds, reading everything sent, then prints how many `change` events and how
many reads of the sockets there were. Usage: listeners.py HOST PORT N SECONDS"""

import asyncio
import sys

HOST, PORT, COUNT, SECONDS = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
changes = 0
reads = 0


async def listen():
    global changes, reads
    reader, writer = await asyncio.open_connection(HOST, PORT)
    writer.write(f"GET /v1/events HTTP/1.1\r\nHost: {HOST}\r\nAccept: text/event-stream\r\n\r\n".encode())
    await writer.drain()
    while data := await reader.read(65536):
        reads += 1
        changes += data.count(b"event: change")


async def main():
    pages = [asyncio.create_task(listen()) for _ in range(COUNT)]
    await asyncio.sleep(SECONDS)
    for page in pages:
        page.cancel()
    print(f"LISTENERS changes={changes} reads={reads}")


asyncio.run(main())
