// Parts of a search divided among machines (docs/programs.md, "More than one machine"):
// `sfgc check FILE --shard K/N --format json` writes part K of N as one JSON document, and
// `sfgc check --merge PART...` reads the N parts back and reports the whole search. A part holds
// the source it was made from (the merge needs no other file), the options that shape the
// search, and, per program, what merges: counts, final states, the classes (their ids when
// another part may have seen the same class), findings with their counterexamples and places in
// the canonical order.
#pragma once

#include "sfg/checker/checker.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace sfg::checker {

inline constexpr int part_format = 2;

// What makes two searches the same search: the options that change which executions are
// explored or how they are reported (not --jobs, --format, --trace-out), as a canonical line.
std::string options_text(const CheckOptions& o, const std::string& program);

// Classes of different parts are disjoint when each class is explored once in the whole
// search under the relation the classes are counted by: dpor whose awaits always read every
// variable of their condition (docs/programs.md). Otherwise parts list their classes' ids.
bool classes_disjoint(const Model& m, Mode mode);

struct ProgramPart {
    const Model* model = nullptr;
    Mode mode = Mode::dpor; // as asked
    bool fell_back = false;
    CheckPartial partial;
};

nlohmann::ordered_json write_part(const std::string& file, const std::string& source,
                                  const std::string& options, std::uint32_t index,
                                  std::uint32_t count, const std::vector<ProgramPart>& programs);

// A part read back (its header checked; the programs are read by read_program).
struct Part {
    std::string path; // the part's own file
    std::string file, source, options;
    std::uint32_t index = 0, count = 0;
    nlohmann::json programs;
};

class PartError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Throws PartError naming what is wrong with `text`, the contents of `path`.
Part read_part(const std::string& path, const std::string& text);
// Whether `parts` are exactly parts 1..N of one search; the problem otherwise (empty: none).
std::string check_parts(const std::vector<Part>& parts);
// Program `i` of a part, for `m` (the program lowered again from the part's source); throws
// PartError when it does not fit.
ProgramPart read_program(const Part& part, std::size_t i, const Model& m);

} // namespace sfg::checker
