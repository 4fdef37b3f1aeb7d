"""Scraping the web: one page (fetch, render decision, browser, formats), a site's map, a crawl."""
