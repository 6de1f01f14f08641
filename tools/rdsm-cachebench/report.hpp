// rdsm-cachebench: summaries of samples, and the table, CSV and gnuplot output.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rdsm::cachebench {

/// Distribution of one point's samples, in ns (nearest-rank percentiles).
struct summary {
  size_t samples = 0;
  double min = 0, p10 = 0, p50 = 0, p90 = 0, p99 = 0, max = 0, mean = 0;
};
summary summarize(std::vector<double> samples_ns);

/// One measured point: a row of the table and of the CSV.
struct row {
  std::string experiment;   // pages | order | primitive
  std::string primitive;    // clean | invalidate | clean_invalidate
  std::string instruction;  // clflush | clflushopt | clwb | dc_cvac | dc_civac | none
  std::string state;        // dirty | clean | uncached (line state before the operation)
  std::string metric;       // touch | issue | complete | unmap
  unsigned order = 0;       // allocation order (pages, order experiments)
  uint64_t pages = 0;       // pages of the mapping (fractional sizes round up)
  uint64_t bytes = 0;       // bytes maintained (whole blocks for the lazy experiments)
  summary s;
};

/// The CSV header line (without newline); write_csv writes it and one line per row, after one
/// "# <comment>" line per comment (only when there are any: the emulation warning).
std::string csv_header();
bool write_csv(const std::string& path, const std::vector<row>& rows, const std::vector<std::string>& comments,
               std::string& error);

/// Prints one table per experiment to stdout.
void print_table(const std::vector<row>& rows);

/// Writes data files, a gnuplot script and PNGs into `dir`. Returns false with `error` set when
/// gnuplot is missing or fails (the caller reports and continues). `title_note` goes in every title.
bool write_plots(const std::string& dir, const std::vector<row>& rows, const std::string& title_note,
                 std::string& error);

}  // namespace rdsm::cachebench
