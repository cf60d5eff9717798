// imsbench's files: the latency histogram (CSV), the per-second timeline (CSV), the plot (SVG), and the
// progress line. Formats: docs/programs/imsbench.md (stable: columns are only ever added at the end).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <utility>

#include "imsb/core/messages.hpp"
#include "imsb/imsbench/imsbench.hpp"

namespace imsb::imsbench {
namespace {

std::string num(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// XML character data, in UTF-8 (utf8_text): the markup characters escaped, control characters dropped.
std::string xml_text(const std::string& text) {
  std::string r;
  for (char c : utf8_text(text)) {
    switch (c) {
      case '&':
        r += "&amp;";
        break;
      case '<':
        r += "&lt;";
        break;
      case '>':
        r += "&gt;";
        break;
      case '"':
        r += "&quot;";
        break;
      default:
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\t') r += c;
    }
  }
  return r;
}

}  // namespace

const std::vector<double>& histogram_bounds_us() {
  static const std::vector<double> bounds = [] {
    const double r10[] = {1, 1.25, 1.6, 2, 2.5, 3.15, 4, 5, 6.3, 8};
    std::vector<double> b;
    for (double decade = 100; decade < 1e8; decade *= 10)
      for (double f : r10) b.push_back(std::round(f * decade));
    b.push_back(1e8);
    return b;
  }();
  return bounds;
}

std::string histogram_csv(const std::vector<double>& latencies_ms) {
  const std::vector<double>& bounds = histogram_bounds_us();
  std::vector<std::uint64_t> counts(bounds.size() + 1, 0);
  for (double ms : latencies_ms) {
    const double us = ms * 1000;
    const auto it = std::lower_bound(bounds.begin(), bounds.end(), us);  // first bound >= us
    ++counts[static_cast<std::size_t>(it - bounds.begin())];
  }
  std::ostringstream out;
  out << "upper_us,count,cumulative_fraction\n";
  std::uint64_t cumulative = 0;
  const double total = static_cast<double>(latencies_ms.size());
  for (std::size_t i = 0; i < counts.size(); ++i) {
    cumulative += counts[i];
    out << (i < bounds.size() ? num(bounds[i], 0) : std::string("inf")) << "," << counts[i] << ","
        << num(total > 0 ? static_cast<double>(cumulative) / total : 0, 6) << "\n";
  }
  return out.str();
}

std::vector<timeline_row> make_timeline(const std::vector<requester_stats>& per_requester, double elapsed_s) {
  // Whole seconds; a last sliver under 50 ms (the time the last answers take after a --duration run's
  // deadline) belongs to the last second rather than a row of its own.
  const int n = std::max(1, static_cast<int>(std::ceil(elapsed_s - 0.05)));
  std::vector<timeline_row> rows(static_cast<std::size_t>(n));
  std::vector<std::vector<double>> lat(rows.size());
  const auto index = [n](double t) {
    int i = t <= 0 ? 0 : static_cast<int>(std::ceil(t)) - 1;
    return static_cast<std::size_t>(std::clamp(i, 0, n - 1));
  };
  for (const requester_stats& r : per_requester) {
    for (double t : r.sent_s) ++rows[index(t)].sent;
    for (const event& e : r.events) {
      const std::size_t i = index(e.t_s);
      if (e.error) {
        ++rows[i].errors;
      } else {
        ++rows[i].replies;
        lat[i].push_back(e.latency_ms);
      }
    }
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    timeline_row& row = rows[i];
    row.second = static_cast<int>(i) + 1;
    const double end = row.second == n ? elapsed_s : static_cast<double>(row.second);
    const double length = std::max(1e-3, end - static_cast<double>(i));
    row.tps = static_cast<double>(row.replies) / length;
    std::sort(lat[i].begin(), lat[i].end());
    row.p50_ms = percentile(lat[i], 0.50);
    row.p99_ms = percentile(lat[i], 0.99);
    row.max_ms = lat[i].empty() ? 0 : lat[i].back();
  }
  return rows;
}

std::string timeline_csv(const std::vector<timeline_row>& rows) {
  std::ostringstream out;
  out << "second,sent,replies,errors,tps,p50_ms,p99_ms,max_ms\n";
  for (const timeline_row& r : rows) {
    out << r.second << "," << r.sent << "," << r.replies << "," << r.errors << "," << num(r.tps, 1) << ","
        << num(r.p50_ms, 3) << "," << num(r.p99_ms, 3) << "," << num(r.max_ms, 3) << "\n";
  }
  return out.str();
}

std::string plot_svg(const std::vector<timeline_row>& rows, const std::string& title) {
  // Layout: 900 x 600; the latency panel (log axis) above, the throughput panel (linear) below.
  constexpr double width = 900, height = 600, left = 80, right = 130, top = 50;
  constexpr double lat_h = 300, gap = 60, tps_h = 140;
  constexpr double plot_w = width - left - right;
  const double lat_top = top, lat_bottom = top + lat_h;
  const double tps_top = lat_bottom + gap, tps_bottom = tps_top + tps_h;
  const double seconds = rows.empty() ? 1 : std::max(1, rows.back().second);
  const auto x_of = [&](double s) { return left + plot_w * s / seconds; };

  // The latency axis: whole decades around every value shown.
  double lo = 1e300, hi = 0;
  for (const timeline_row& r : rows) {
    if (r.replies == 0) continue;
    for (double v : {r.p50_ms, r.p99_ms, r.max_ms}) {
      if (v > 0) lo = std::min(lo, v), hi = std::max(hi, v);
    }
  }
  if (hi <= 0) lo = 0.1, hi = 1;
  int d_lo = static_cast<int>(std::floor(std::log10(lo)));
  int d_hi = static_cast<int>(std::ceil(std::log10(hi)));
  if (d_hi <= d_lo) d_hi = d_lo + 1;
  const auto y_lat = [&](double ms) {
    const double v = std::log10(std::max(ms, std::pow(10.0, d_lo)));
    return lat_bottom - lat_h * (v - d_lo) / (d_hi - d_lo);
  };
  // The throughput axis: 0 to a round number above the highest second.
  double tmax = 0;
  for (const timeline_row& r : rows) tmax = std::max(tmax, r.tps);
  double step = 1;  // 1, 2, 5, 10, 20, 50 ...: at most 5 steps to the top
  for (int k = 1; tmax / step > 5; ++k) step = (k % 3 == 0 ? 1 : k % 3 == 1 ? 2 : 5) * std::pow(10.0, k / 3);
  const double tps_top_value = std::max(step, std::ceil(tmax / step) * step);
  const auto y_tps = [&](double v) { return tps_bottom - tps_h * v / tps_top_value; };

  // The heading fits the width (about 100 characters at 14 px); <title> keeps it whole.
  // Cut by characters, never inside a UTF-8 sequence (the file would not be well-formed).
  std::string shown_title = utf8_text("imsbench: " + title);
  std::size_t chars = 0, cut = shown_title.size();
  for (std::size_t i = 0; i < shown_title.size(); ++i) {
    if ((static_cast<unsigned char>(shown_title[i]) & 0xC0) == 0x80) continue;
    if (++chars == 98) cut = i;
  }
  if (chars > 100) shown_title = shown_title.substr(0, cut) + "...";
  std::ostringstream o;
  o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
    << "\" viewBox=\"0 0 " << width << " " << height << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
    << "<title>" << xml_text("imsbench: " + title) << "</title>\n"
    << "<rect x=\"0\" y=\"0\" width=\"" << width << "\" height=\"" << height << "\" fill=\"white\"/>\n"
    << "<text x=\"" << left << "\" y=\"25\" font-size=\"14\">" << xml_text(shown_title) << "</text>\n";
  // Latency panel: frame, decade grid lines, labels.
  o << "<g id=\"latency-axis\" stroke=\"#999\" fill=\"none\">\n"
    << "<rect x=\"" << left << "\" y=\"" << lat_top << "\" width=\"" << plot_w << "\" height=\"" << lat_h
    << "\"/>\n";
  for (int d = d_lo + 1; d < d_hi; ++d) {
    const double y = y_lat(std::pow(10.0, d));
    o << "<line x1=\"" << left << "\" y1=\"" << num(y, 1) << "\" x2=\"" << left + plot_w << "\" y2=\""
      << num(y, 1) << "\" stroke-dasharray=\"2,3\"/>\n";
  }
  o << "</g>\n<g id=\"latency-labels\" fill=\"black\">\n";
  for (int d = d_lo; d <= d_hi; ++d) {
    const double v = std::pow(10.0, d);
    o << "<text x=\"" << left - 6 << "\" y=\"" << num(y_lat(v) + 4, 1) << "\" text-anchor=\"end\">"
      << (d >= 0 ? num(v, 0) : num(v, -d)) << "</text>\n";
  }
  o << "<text x=\"20\" y=\"" << num((lat_top + lat_bottom) / 2, 1) << "\" transform=\"rotate(-90 20 "
    << num((lat_top + lat_bottom) / 2, 1) << ")\" text-anchor=\"middle\">latency ms (log)</text>\n</g>\n";
  // Throughput panel.
  o << "<g id=\"tps-axis\" stroke=\"#999\" fill=\"none\">\n"
    << "<rect x=\"" << left << "\" y=\"" << tps_top << "\" width=\"" << plot_w << "\" height=\"" << tps_h
    << "\"/>\n"
    << "</g>\n<g id=\"tps-labels\" fill=\"black\">\n";
  for (double v = 0; v <= tps_top_value + step / 2; v += step) {
    o << "<text x=\"" << left - 6 << "\" y=\"" << num(y_tps(v) + 4, 1) << "\" text-anchor=\"end\">"
      << num(v, 0) << "</text>\n";
  }
  o << "<text x=\"20\" y=\"" << num((tps_top + tps_bottom) / 2, 1) << "\" transform=\"rotate(-90 20 "
    << num((tps_top + tps_bottom) / 2, 1) << ")\" text-anchor=\"middle\">replies/s</text>\n</g>\n";
  // The time axis (under both panels).
  int xstep = 1;
  while (seconds / xstep > 12) xstep = xstep == 1 ? 2 : xstep == 2 ? 5 : xstep * 2;
  o << "<g id=\"time-labels\" fill=\"black\" text-anchor=\"middle\">\n";
  for (int s = 0; s <= static_cast<int>(seconds); s += xstep) {
    o << "<text x=\"" << num(x_of(s), 1) << "\" y=\"" << num(lat_bottom + 16, 1) << "\">" << s << "</text>\n"
      << "<text x=\"" << num(x_of(s), 1) << "\" y=\"" << num(tps_bottom + 16, 1) << "\">" << s << "</text>\n";
  }
  o << "<text x=\"" << num(left + plot_w / 2, 1) << "\" y=\"" << num(tps_bottom + 36, 1)
    << "\">seconds since the start of the run</text>\n</g>\n";

  // The series: one path each; a second without replies breaks the latency lines.
  struct series {
    const char* id;
    const char* colour;
    double timeline_row::*field;
    bool latency;
  };
  const series all[] = {{"p50", "#1f77b4", &timeline_row::p50_ms, true},
                        {"p99", "#ff7f0e", &timeline_row::p99_ms, true},
                        {"max", "#d62728", &timeline_row::max_ms, true},
                        {"tps", "#2ca02c", &timeline_row::tps, false}};
  // A point without a neighbour (a run shorter than 2 s, a second between two without replies) draws
  // no line: it gets a dot, in a group "ID-points".
  for (const series& s : all) {
    std::string d, dots;
    std::vector<std::pair<double, double>> piece;  // the points since the last gap
    const auto end_piece = [&] {
      if (piece.size() == 1)
        dots +=
            "<circle cx=\"" + num(piece[0].first, 1) + "\" cy=\"" + num(piece[0].second, 1) + "\" r=\"3\"/>";
      piece.clear();
    };
    for (const timeline_row& r : rows) {
      if (s.latency && r.replies == 0) {
        end_piece();
        continue;
      }
      const double x = x_of(r.second - 0.5), y = s.latency ? y_lat(r.*s.field) : y_tps(r.*s.field);
      d += (d.empty() ? "" : " ") + std::string(piece.empty() ? "M" : "L") + num(x, 1) + "," + num(y, 1);
      piece.emplace_back(x, y);
    }
    end_piece();
    o << "<path id=\"" << s.id << "\" d=\"" << d << "\" fill=\"none\" stroke=\"" << s.colour
      << "\" stroke-width=\"" << (s.id[0] == 'm' ? "1" : "2") << "\"/>\n";
    if (!dots.empty())
      o << "<g id=\"" << s.id << "-points\" fill=\"" << s.colour << "\">" << dots << "</g>\n";
  }
  // Legend.
  o << "<g id=\"legend\">\n";
  double ly = lat_top + 10;
  for (const series& s : all) {
    const double lx = left + plot_w + 15;
    o << "<line x1=\"" << lx << "\" y1=\"" << ly << "\" x2=\"" << lx + 20 << "\" y2=\"" << ly
      << "\" stroke=\"" << s.colour << "\" stroke-width=\"2\"/><text x=\"" << lx + 26 << "\" y=\"" << ly + 4
      << "\">" << (s.latency ? std::string(s.id) + " ms" : std::string("replies/s")) << "</text>\n";
    ly += 20;
  }
  o << "</g>\n</svg>\n";
  return o.str();
}

std::string progress_line(double elapsed_s, std::uint64_t sent, std::uint64_t replies, std::uint64_t errors,
                          double tps, double p50_ms, double p99_ms) {
  std::ostringstream out;
  out << msg::IMB4944I << " imsbench: " << num(elapsed_s, 0) << " s: " << sent << " sent, " << replies
      << " replies, " << errors << " errors; last second " << num(tps, 1) << " tps, p50 " << num(p50_ms, 3)
      << " ms, p99 " << num(p99_ms, 3) << " ms";
  return out.str();
}

}  // namespace imsb::imsbench
