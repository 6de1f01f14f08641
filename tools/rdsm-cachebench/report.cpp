// rdsm-cachebench: percentiles, the stdout table, the CSV and the gnuplot plots.
#include "report.hpp"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <numeric>
#include <sstream>

namespace rdsm::cachebench {
namespace {

double rank(const std::vector<double>& sorted, double q) {
  // Nearest rank: the smallest sample with at least q of the samples at or below it.
  size_t k = static_cast<size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  k = std::clamp<size_t>(k, 1, sorted.size());
  return sorted[k - 1];
}

double per_page(double ns, const row& r) { return r.pages == 0 ? 0 : ns / static_cast<double>(r.pages); }

std::string fixed(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

bool have_gnuplot() {
  const char* path = std::getenv("PATH");
  std::stringstream ss(path != nullptr ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(ss, dir, ':'))
    if (!dir.empty() && access((dir + "/gnuplot").c_str(), X_OK) == 0) return true;
  return false;
}

// Writes `rows` (already one series, sorted by x) as "x min p10 p50 p90 p99 max" lines.
void write_series(const std::string& path, const std::vector<const row*>& rows, bool x_is_order) {
  std::ofstream f(path);
  f << "# x min p10 p50 p90 p99 max (ns); then p50 and p99 per page\n";
  for (const row* r : rows) {
    double x = x_is_order ? r->order : (r->experiment == "primitive" ? r->bytes : r->pages);
    f << x << ' ' << r->s.min << ' ' << r->s.p10 << ' ' << r->s.p50 << ' ' << r->s.p90 << ' ' << r->s.p99 << ' '
      << r->s.max << ' ' << per_page(r->s.p50, *r) << ' ' << per_page(r->s.p99, *r) << '\n';
  }
}

std::vector<const row*> select(const std::vector<row>& rows, const std::string& exp, const std::string& prim,
                               const std::string& insn, const std::string& state, const std::string& metric) {
  std::vector<const row*> out;
  for (const row& r : rows)
    if (r.experiment == exp && (prim.empty() || r.primitive == prim) && (insn.empty() || r.instruction == insn) &&
        r.state == state && r.metric == metric)
      out.push_back(&r);
  return out;
}

// Latency (candlesticks: box p10..p90, whiskers min..max; lines p50, p99, issue p50) and ns per page,
// side by side, for the pages or order experiment.
void lazy_plot(std::ostream& gp, const std::string& dir, const std::vector<row>& rows, const std::string& exp,
               const std::string& note) {
  auto clean = select(rows, exp, "clean", "", "dirty", "complete");
  if (clean.empty()) return;
  auto issue = select(rows, exp, "clean", "", "dirty", "issue");
  auto touch = select(rows, exp, "clean", "", "dirty", "touch");
  const bool by_order = exp == "order";
  write_series(dir + "/" + exp + "_complete.dat", clean, by_order);
  write_series(dir + "/" + exp + "_issue.dat", issue, by_order);
  write_series(dir + "/" + exp + "_touch.dat", touch, by_order);
  const row& first = *clean.front();
  std::string what = by_order ? "fixed " + std::to_string(first.pages) + " pages, variable allocation order"
                              : "allocation order " + std::to_string(first.order) + ", variable page count";
  gp << "set output '" << dir << "/exp" << (by_order ? 2 : 1) << "_" << exp << ".png'\n"
     << "set multiplot layout 1,2 title \"Release (clean to PoC, " << first.instruction << ") of a lazily allocated "
     << "mapping: " << what << "\\n" << note << "\"\n"
     << "unset logscale\nset logscale y 10\nset grid\nset key top left\n"
     << (by_order ? "set xlabel 'allocation order (block = 2^order pages)'\nset xtics 1\n"
                  : "set logscale x 2\nset xlabel 'pages in the mapping'\nset format x '%g'\n")
     << "set ylabel 'ns'\nset title 'latency (box p10-p90, whiskers min-max)'\n"
     << "plot '" << dir << "/" << exp << "_complete.dat' using 1:3:2:7:5 with candlesticks whiskerbars 0.5 lc rgb '#7799cc' "
     << "title 'clean+fence distribution', "
     << "'' using 1:4 with linespoints lw 2 lc rgb '#000088' title 'clean+fence p50', "
     << "'' using 1:6 with linespoints dt 2 lc rgb '#cc0000' title 'clean+fence p99', "
     << "'" << dir << "/" << exp << "_issue.dat' using 1:4 with linespoints lc rgb '#009900' title 'issue only p50', "
     << "'" << dir << "/" << exp << "_touch.dat' using 1:4 with lines dt 3 lc rgb '#888888' title 'first touch p50'\n"
     << "set title 'ns per page of the mapping'\nset ylabel 'ns / page'\n"
     << "plot '" << dir << "/" << exp << "_complete.dat' using 1:8 with linespoints lw 2 lc rgb '#000088' title 'p50', "
     << "'' using 1:9 with linespoints dt 2 lc rgb '#cc0000' title 'p99'\n"
     << "unset multiplot\nset format x '%g'\nset xtics autofreq\n";
}

// p50 of clean+fence against range size, one line per (primitive, instruction), one PNG per state;
// issue-only as dashed lines of the same colour.
void primitive_plots(std::ostream& gp, const std::string& dir, const std::vector<row>& rows, const std::string& note) {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const row& r : rows)
    if (r.experiment == "primitive" && std::find(pairs.begin(), pairs.end(), std::pair{r.primitive, r.instruction}) ==
                                           pairs.end())
      pairs.emplace_back(r.primitive, r.instruction);
  if (pairs.empty()) return;
  for (const char* state : {"dirty", "clean", "uncached"}) {
    std::string plot;
    int color = 1;
    for (const auto& [prim, insn] : pairs) {
      auto complete = select(rows, "primitive", prim, insn, state, "complete");
      auto issue = select(rows, "primitive", prim, insn, state, "issue");
      if (complete.empty()) continue;
      std::string base = dir + "/primitive_" + state + "_" + prim + "_" + insn;
      write_series(base + "_complete.dat", complete, false);
      write_series(base + "_issue.dat", issue, false);
      if (!plot.empty()) plot += ", ";
      plot += "'" + base + "_complete.dat' using 1:4 with linespoints lw 2 lc " + std::to_string(color) + " title '" +
              prim + " (" + insn + ") +fence', '" + base + "_issue.dat' using 1:4 with lines dt 2 lc " +
              std::to_string(color) + " title '" + prim + " (" + insn + ") issue'";
      ++color;
    }
    if (plot.empty()) continue;
    gp << "set output '" << dir << "/primitives_" << state << ".png'\n"
       << "set title \"Cache maintenance of a range, lines " << state << " before (p50)\\n" << note << "\"\n"
       << "unset logscale\nset logscale xy 2\nset grid\nset key outside right\nset xlabel 'bytes'\nset ylabel 'ns'\n"
       << "plot " << plot << "\n";
  }
}

}  // namespace

summary summarize(std::vector<double> v) {
  summary s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.samples = v.size();
  s.min = v.front();
  s.max = v.back();
  s.p10 = rank(v, 0.10);
  s.p50 = rank(v, 0.50);
  s.p90 = rank(v, 0.90);
  s.p99 = rank(v, 0.99);
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  return s;
}

std::string csv_header() {
  return "experiment,primitive,instruction,state,metric,order,pages,bytes,samples,min_ns,p10_ns,p50_ns,p90_ns,"
         "p99_ns,max_ns,mean_ns,p50_ns_per_page,p99_ns_per_page";
}

bool write_csv(const std::string& path, const std::vector<row>& rows, const std::vector<std::string>& comments,
               std::string& error) {
  std::ofstream f(path);
  if (!f) {
    error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  for (const std::string& c : comments) f << "# " << c << '\n';
  f << csv_header() << '\n';
  for (const row& r : rows)
    f << r.experiment << ',' << r.primitive << ',' << r.instruction << ',' << r.state << ',' << r.metric << ','
      << r.order << ',' << r.pages << ',' << r.bytes << ',' << r.s.samples << ',' << fixed(r.s.min) << ','
      << fixed(r.s.p10) << ',' << fixed(r.s.p50) << ',' << fixed(r.s.p90) << ',' << fixed(r.s.p99) << ','
      << fixed(r.s.max) << ',' << fixed(r.s.mean) << ',' << fixed(per_page(r.s.p50, r)) << ','
      << fixed(per_page(r.s.p99, r)) << '\n';
  f.close();
  if (!f) {
    error = "error writing " + path;
    return false;
  }
  return true;
}

void print_table(const std::vector<row>& rows) {
  std::string current;
  for (const row& r : rows) {
    if (r.experiment != current) {
      current = r.experiment;
      std::printf("\n== experiment: %s ==\n", current.c_str());
      std::printf("%-16s %-10s %-8s %-8s %5s %7s %10s %5s %11s %11s %11s %11s %11s %11s %10s %10s\n", "primitive",
                  "insn", "state", "metric", "order", "pages", "bytes", "n", "min", "p10", "p50", "p90", "p99",
                  "max", "p50/page", "p99/page");
    }
    std::printf("%-16s %-10s %-8s %-8s %5u %7llu %10llu %5zu %11.0f %11.0f %11.0f %11.0f %11.0f %11.0f %10.1f %10.1f\n",
                r.primitive.c_str(), r.instruction.c_str(), r.state.c_str(), r.metric.c_str(), r.order,
                static_cast<unsigned long long>(r.pages), static_cast<unsigned long long>(r.bytes), r.s.samples,
                r.s.min, r.s.p10, r.s.p50, r.s.p90, r.s.p99, r.s.max, per_page(r.s.p50, r), per_page(r.s.p99, r));
  }
  std::printf("(all times in ns; n = samples; per page = per page of the mapping, a range under a page counts as one)\n");
}

bool write_plots(const std::string& dir, const std::vector<row>& rows, const std::string& note, std::string& error) {
  if (!have_gnuplot()) {
    error = "gnuplot not found in PATH (Debian: apt-get install gnuplot-nox); plots skipped";
    return false;
  }
  if (mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST) {
    error = "cannot create " + dir + ": " + std::strerror(errno);
    return false;
  }
  const std::string script = dir + "/plots.gp";
  {
    std::ofstream gp(script);
    gp << "# Generated by rdsm-cachebench; rerun with: gnuplot " << script << "\n"
       << "set terminal png size 1400,560 noenhanced\nset datafile commentschars '#'\n";
    lazy_plot(gp, dir, rows, "pages", note);
    lazy_plot(gp, dir, rows, "order", note);
    primitive_plots(gp, dir, rows, note);
    if (!gp) {
      error = "cannot write " + script;
      return false;
    }
  }
  const std::string cmd = "gnuplot '" + script + "' 2>'" + dir + "/gnuplot.log'";
  const int rc = std::system(cmd.c_str());
  if (rc != 0) {
    error = "gnuplot failed (exit " + std::to_string(WIFEXITED(rc) ? WEXITSTATUS(rc) : -1) + "); see " + dir + "/gnuplot.log";
    return false;
  }
  return true;
}

}  // namespace rdsm::cachebench
