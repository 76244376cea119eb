// Printing a CheckResult (docs/programs.md; after tsan_report: findings are data, this only formats
// them): the summary, each finding with its counterexample as a step table with one column per
// thread (the thesis' Figure 2.2 layout), the JSON of docs/programs.md, and STD trace files that
// `sfgc trace` replays to the same race or violation.
#pragma once

#include "sfg/checker/checker.hpp"

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <string>

namespace sfg::checker {

// "w(balance)", "fork(deposit,withdraw)", "begin".
std::string op_text(const Model& m, const Action& a);

void print_table(std::ostream& out, const Model& m, const CheckFinding& f);
// `part`: "part K of N" for one part of a divided search (--shard), shown after the mode.
void print_text(std::ostream& out, const Model& m, const CheckResult& r,
                const std::string& part = "");
nlohmann::ordered_json to_json(const Model& m, const CheckResult& r);

// The counterexample as a text trace (docs/traces.md): `THREAD|OP|PROGRAM:LINE` lines after a
// `#` header naming the finding.
std::string trace_text(const Model& m, const CheckFinding& f);
// The file name for a finding's trace: PROGRAM-KIND-VAR.std or PROGRAM-KIND-LINE.std.
std::string trace_file_name(const Model& m, const CheckFinding& f);

} // namespace sfg::checker
