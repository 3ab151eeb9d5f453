"""Take screenshots of pages with Debian's Chromium, to look at what a user sees.

    .venv/bin/python scripts/screenshot.py http://127.0.0.1:8000/t/nantong-2014/ /tmp/shots
writes phone.png (390 px wide) and desktop.png (1280 px) into the folder.
"""

import os
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def main(url: str, out: str) -> None:
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"), args=ARGS
        )
        for name, width, height in [("phone", 390, 844), ("desktop", 1280, 900)]:
            page = browser.new_page(viewport={"width": width, "height": height})
            errors = []
            page.on("console", lambda m, errors=errors: m.type == "error" and errors.append(m.text))
            page.goto(url)
            page.screenshot(path=str(folder / f"{name}.png"), full_page=True)
            for e in errors:
                print(f"{name}: console error: {e}")
            page.close()
        browser.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
