// Opens a report's index.html in the system's Chromium, as a reader would on a laptop and on a
// phone, and prints one JSON object of what it found per screen size; analysis/test_report_browser.py
// asserts on it. Never downloads a browser: it drives Debian's /usr/bin/chromium (or CHROMIUM).
//
// node check_report.mjs REPORT_HTML SCREENSHOT_DIR
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const [page_path, shots] = process.argv.slice(2);
const SIZES = { laptop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } };

// What the reader meets: run inside the page once it has loaded.
function inspect() {
  const width = document.documentElement.clientWidth;
  const scrollable = (el) => {
    for (let p = el; p; p = p.parentElement) {
      if (["auto", "scroll"].includes(getComputedStyle(p).overflowX) && p !== document.documentElement) return true;
    }
    return false;
  };
  const overflowing = [...document.body.querySelectorAll("*")]
    .filter((el) => el.getBoundingClientRect().right > width + 1 && !scrollable(el))
    .map((el) => `${el.tagName.toLowerCase()}${el.id ? "#" + el.id : ""}: ${el.textContent.slice(0, 60)}`);
  const links = [...document.querySelectorAll('a[href^="#"]')].map((a) => a.getAttribute("href"));
  const heading = document.getElementById("the-bottom-line");
  const first = heading && heading.nextElementSibling;
  // The first line of the bottom line's first sentence: a range over its first character.
  const line = first && document.createRange();
  if (line) { line.setStart(first.firstChild, 0); line.setEnd(first.firstChild, 1); }
  return {
    page_width: document.documentElement.scrollWidth,
    viewport_width: width,
    images: [...document.images].map((img) => ({ alt: img.alt.slice(0, 60), loaded: img.complete && img.naturalWidth > 0 })),
    overflowing: overflowing.slice(0, 20),
    links: links.map((href) => ({ href, target: document.getElementById(decodeURIComponent(href.slice(1))) !== null })),
    bottom_line: heading && {
      heading_top: heading.getBoundingClientRect().top,
      first_line_bottom: line.getBoundingClientRect().bottom,
      paragraph_bottom: first.getBoundingClientRect().bottom,
      text: first.textContent,
    },
    summary_figure_top: document.querySelector("figure img")?.getBoundingClientRect().top ?? null,
  };
}

const profile = mkdtempSync(join(tmpdir(), "report-chromium-"));
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--no-first-run"],
});
const found = {};
try {
  for (const [name, viewport] of Object.entries(SIZES)) {
    const page = await browser.newPage();
    await page.setViewportSize(viewport);
    const errors = [];
    page.on("console", (msg) => { if (msg.type() === "error") errors.push(msg.text()); });
    page.on("pageerror", (err) => errors.push(String(err)));
    await page.goto(pathToFileURL(page_path).href, { waitUntil: "load" });
    found[name] = { ...viewport, ...(await page.evaluate(inspect)), console_errors: errors };
    // Following each in-page link must bring its target to the top of the screen.
    found[name].links_landing = [];
    for (const { href } of found[name].links) {
      await page.evaluate((h) => { window.scrollTo(0, 0); location.hash = ""; location.hash = h; }, href);
      found[name].links_landing.push({
        href, top: await page.evaluate((h) => document.getElementById(h.slice(1))?.getBoundingClientRect().top, href),
      });
    }
    await page.evaluate(() => { location.hash = ""; window.scrollTo(0, 0); });
    await page.screenshot({ path: join(shots, `${name}.png`) });
    await page.close();
  }
} finally {
  await browser.close();
  rmSync(profile, { recursive: true, force: true });
}
console.log(JSON.stringify(found));
