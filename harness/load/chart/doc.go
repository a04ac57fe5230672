// Package chart draws self-contained SVG charts — a latency percentile
// spectrum and time series — from plain data, and puts charts and tables
// into one self-contained HTML page. The output references no network asset,
// font or script: it opens the same offline, in a browser or in a file
// viewer.
package chart
