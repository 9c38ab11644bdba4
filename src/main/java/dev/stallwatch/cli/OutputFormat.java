package dev.stallwatch.cli;

/**
 * The {@code -o/--output} formats of {@code diagnose} and {@code status}: one list, one spelling.
 */
enum OutputFormat {
  table,
  json
}
