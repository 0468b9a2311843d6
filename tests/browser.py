"""Headless Chromium for tests, driven over the DevTools protocol with the standard library.

`find_chromium()` locates the browser; `Browser` starts it and opens `Page`s that
navigate, evaluate JavaScript, send real mouse events and take screenshots, while
collecting console errors, uncaught exceptions and network requests. `decode_png`
reads a screenshot's pixels with zlib and struct.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import shutil
import socket
import struct
import subprocess
import time
import zlib
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["Browser", "BrowserError", "Page", "decode_png", "find_chromium"]

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--hide-scrollbars",
    "--mute-audio",
)


class BrowserError(RuntimeError):
    """The browser did not start, did not answer in time, or reported an error."""


def find_chromium() -> str | None:
    """Path of a Chromium (or Chrome) executable: $CHROMIUM, /usr/bin/chromium, or on PATH."""
    candidates = [os.environ.get("CHROMIUM", ""), "/usr/bin/chromium"]
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        candidates.append(shutil.which(name) or "")
    for path in candidates:
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


# --- a minimal WebSocket client (RFC 6455): text frames, fragmentation, ping ------------------

_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


class _WebSocket:
    def __init__(self, host: str, port: int, path: str, timeout: float) -> None:
        self.sock = socket.create_connection((host, port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            (
                f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise BrowserError("the browser closed the connection during the handshake")
            self.buffer += chunk
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        if " 101 " not in lines[0]:
            raise BrowserError(f"WebSocket handshake refused: {lines[0]}")
        accept = base64.b64encode(hashlib.sha1((key + _GUID).encode()).digest()).decode()
        headers = {
            k.strip().lower(): v.strip() for k, _, v in (x.partition(":") for x in lines[1:])
        }
        if headers.get("sec-websocket-accept") != accept:
            raise BrowserError("WebSocket handshake: wrong Sec-WebSocket-Accept")

    def _exact(self, count: int) -> bytes:
        while len(self.buffer) < count:
            chunk = self.sock.recv(max(65536, count - len(self.buffer)))
            if not chunk:
                raise BrowserError("the browser closed the connection")
            self.buffer += chunk
        out, self.buffer = self.buffer[:count], self.buffer[count:]
        return out

    def _send_frame(self, opcode: int, payload: bytes) -> None:
        # Frames from a client are masked (RFC 6455, 5.3).
        size = len(payload)
        if size < 126:
            head = struct.pack("!BB", 0x80 | opcode, 0x80 | size)
        elif size < 1 << 16:
            head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, size)
        else:
            head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, size)
        mask = os.urandom(4)
        self.sock.sendall(head + mask + _xor(payload, mask))

    def send(self, text: str) -> None:
        self._send_frame(0x1, text.encode())

    def recv(self) -> str:
        """The next text message, its fragments joined; pings are answered on the way."""
        parts: list[bytes] = []
        while True:
            first, second = self._exact(2)
            opcode, size = first & 0x0F, second & 0x7F
            if size == 126:
                (size,) = struct.unpack("!H", self._exact(2))
            elif size == 127:
                (size,) = struct.unpack("!Q", self._exact(8))
            mask = self._exact(4) if second & 0x80 else b""
            payload = self._exact(size)
            if mask:
                payload = _xor(payload, mask)
            if opcode == 0x8:
                raise BrowserError("the browser closed the WebSocket")
            if opcode == 0x9:
                self._send_frame(0xA, payload)
                continue
            if opcode == 0xA:
                continue
            parts.append(payload)
            if first & 0x80:
                return b"".join(parts).decode()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._send_frame(0x8, b"")
        self.sock.close()


def _xor(data: bytes, mask: bytes) -> bytes:
    if not data:
        return data
    key = (mask * (len(data) // 4 + 1))[: len(data)]
    return (int.from_bytes(data, "big") ^ int.from_bytes(key, "big")).to_bytes(len(data), "big")


# --- the browser and its pages -------------------------------------------------------------


class Browser:
    """One headless Chromium process; `new_page()` opens tabs in it. Use `close()` (or `with`)."""

    def __init__(self, executable: str, profile_dir: str | Path, timeout: float = 20.0) -> None:
        self.timeout = timeout
        profile = Path(profile_dir)
        profile.mkdir(parents=True, exist_ok=True)
        port_file = profile / "DevToolsActivePort"
        port_file.unlink(missing_ok=True)
        self.process = subprocess.Popen(
            [
                executable,
                *FLAGS,
                f"--user-data-dir={profile}",
                "--remote-debugging-port=0",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        # With port 0 the browser picks a free port and writes it, and its path, to this file.
        deadline = time.monotonic() + timeout
        while True:
            text = port_file.read_text() if port_file.exists() else ""
            if text.count("\n") >= 1 and text.split("\n")[1].strip():
                break
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.process.kill()
                raise BrowserError(f"{executable} did not start its DevTools endpoint")
            time.sleep(0.05)
        port, path = text.split("\n")[:2]
        try:
            self.ws = _WebSocket("127.0.0.1", int(port), path.strip(), timeout)
        except (OSError, BrowserError):
            self.process.kill()
            self.process.wait()
            raise
        self.next_id = 0
        self.events: dict[str | None, list[dict[str, Any]]] = {}

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def call(
        self, method: str, params: dict[str, Any] | None = None, session: str | None = None
    ) -> Any:
        """Send a command and wait for its result; events that arrive meanwhile are kept."""
        self.next_id += 1
        message: dict[str, Any] = {"id": self.next_id, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        self.ws.send(json.dumps(message))
        while True:
            reply = self._receive()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error'].get('message')}")
                return reply.get("result", {})

    def _receive(self) -> dict[str, Any]:
        reply = json.loads(self.ws.recv())
        if "method" in reply:
            self.events.setdefault(reply.get("sessionId"), []).append(reply)
        return reply

    def wait_for(self, session: str, method: str, timeout: float | None = None) -> dict[str, Any]:
        """The first event `method` of `session` not yet consumed, waiting for it if needed."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            for event in self.events.get(session, []):
                if event["method"] == method and not event.get("consumed"):
                    event["consumed"] = True
                    return event
            if time.monotonic() > deadline:
                raise BrowserError(f"timed out waiting for {method}")
            self._receive()

    def new_page(self, width: int = 1000, height: int = 700) -> Page:
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})
        return Page(self, target, session["sessionId"], width, height)

    def close(self) -> None:
        with contextlib.suppress(BrowserError, OSError):
            self.call("Browser.close")
        self.ws.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class Page:
    """A tab: `goto`, `evaluate`, mouse events, `screenshot`; `errors()` and `requests()`."""

    def __init__(self, browser: Browser, target: str, session: str, width: int, height: int):
        self.browser = browser
        self.target = target
        self.session = session
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable")
        self.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        )

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        return self.browser.call(method, params, self.session)

    def goto(self, url: str) -> None:
        """Navigate and wait for the load event (scripts have run by then)."""
        self.call("Page.navigate", {"url": url})
        self.browser.wait_for(self.session, "Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression (JSON-able), awaiting it if it is a promise."""
        result = self.call(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
        )
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise BrowserError(f"JavaScript error: {text}")
        return result["result"].get("value")

    def frame(self) -> None:
        """Wait until the page has painted a frame (drawing is scheduled for the next one)."""
        self.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")

    def mouse(self, kind: str, x: float, y: float, **extra: Any) -> None:
        self.call("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, **extra})

    def click(self, x: float, y: float) -> None:
        self.mouse("mouseMoved", x, y)
        self.mouse("mousePressed", x, y, button="left", buttons=1, clickCount=1)
        self.mouse("mouseReleased", x, y, button="left", buttons=0, clickCount=1)

    def drag(self, x0: float, y0: float, x1: float, y1: float, steps: int = 5) -> None:
        self.mouse("mouseMoved", x0, y0)
        self.mouse("mousePressed", x0, y0, button="left", buttons=1, clickCount=1)
        for k in range(1, steps + 1):
            t = k / steps
            self.mouse("mouseMoved", x0 + (x1 - x0) * t, y0 + (y1 - y0) * t, buttons=1)
        self.mouse("mouseReleased", x1, y1, button="left", buttons=0, clickCount=1)

    def wheel(self, x: float, y: float, delta_y: float) -> None:
        self.mouse("mouseWheel", x, y, deltaX=0, deltaY=delta_y)

    def screenshot(self) -> bytes:
        return base64.b64decode(self.call("Page.captureScreenshot", {"format": "png"})["data"])

    def _events(self) -> list[dict[str, Any]]:
        self.evaluate("0")  # a round trip, so events sent before now have arrived
        return self.browser.events.get(self.session, [])

    def errors(self) -> list[str]:
        """Uncaught exceptions, console.error/assert messages and error log entries so far."""
        out = []
        for event in self._events():
            method, params = event["method"], event["params"]
            if method == "Runtime.exceptionThrown":
                details = params["exceptionDetails"]
                out.append(details.get("exception", {}).get("description") or details["text"])
            elif method == "Runtime.consoleAPICalled" and params["type"] in ("error", "assert"):
                out.append(
                    " ".join(str(a.get("value", a.get("description"))) for a in params["args"])
                )
            elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
                out.append(params["entry"]["text"])
        return out

    def requests(self) -> list[str]:
        """URLs of every request the page made."""
        return [
            e["params"]["request"]["url"]
            for e in self._events()
            if e["method"] == "Network.requestWillBeSent"
        ]

    def close(self) -> None:
        self.browser.call("Target.closeTarget", {"targetId": self.target})


# --- PNG ------------------------------------------------------------------------------------


def decode_png(data: bytes) -> np.ndarray:
    """The pixels of an 8-bit RGB(A) non-interlaced PNG, as an array (height, width, channels)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat = 8, []
    width = height = channels = 0
    while pos < len(data):
        (length,) = struct.unpack("!I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack("!IIBBBBB", body)
            if depth != 8 or color not in (2, 6) or interlace:
                raise ValueError(f"unsupported PNG: depth {depth}, color type {color}")
            channels = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    raw = np.frombuffer(zlib.decompress(b"".join(idat)), dtype=np.uint8)
    stride = width * channels
    rows = raw.reshape(height, stride + 1)
    out = np.zeros((height, stride), dtype=np.uint8)
    prev = np.zeros(stride, dtype=np.uint8)
    for y in range(height):
        kind, line = rows[y, 0], rows[y, 1:]
        if kind == 0:
            cur = line.copy()
        elif kind == 1:  # Sub: a running sum along each channel, modulo 256
            cur = np.cumsum(line.reshape(width, channels), axis=0, dtype=np.uint8).reshape(-1)
        elif kind == 2:  # Up
            cur = line + prev
        elif kind in (3, 4):
            cur = _unfilter_slow(int(kind), line.tolist(), prev.tolist(), channels)
        else:
            raise ValueError(f"bad PNG filter {kind}")
        out[y] = cur
        prev = out[y]
    return out.reshape(height, width, channels)


def _unfilter_slow(kind: int, line: list[int], prev: list[int], bpp: int) -> np.ndarray:
    """Average (3) and Paeth (4) filters: each byte depends on the one before it."""
    cur = [0] * len(line)
    for i, value in enumerate(line):
        left = cur[i - bpp] if i >= bpp else 0
        up = prev[i]
        if kind == 3:
            cur[i] = (value + (left + up) // 2) & 0xFF
            continue
        corner = prev[i - bpp] if i >= bpp else 0
        p = left + up - corner
        pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
        pred = left if pa <= pb and pa <= pc else up if pb <= pc else corner
        cur[i] = (value + pred) & 0xFF
    return np.array(cur, dtype=np.uint8)
