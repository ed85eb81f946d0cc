"""The web agent (``agent``) and what it needs: DuckDuckGo news (``news``), page fetching under
robots.txt with main-text extraction (``pages``), the one-step crawl (``crawl``) and rendering
pages built by JavaScript in Chromium (``browser``)."""
