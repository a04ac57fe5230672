// Package placement asks the filesystem to place new directories where
// creating files in them is cheap (see SpreadSubdirs).
package placement
