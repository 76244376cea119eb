// Parts of an exploration divided among machines (docs/explore.md, "More than one machine"):
// with `shards` and `part_file`, explore writes its part as one JSON document, and
// sfg::merge_explore_parts (or `sfgc check --merge`) reads the N parts back and reports the
// whole search. A part holds what merges: executions, the distinct classes, completeness, and
// per finding key the kept finding with its place in the search's canonical order (the task's
// path, the execution within the task), so that the merge keeps, as one process would have, the
// shortest run and among equally short ones the first.
#pragma once

#include "explore/dependence.hpp"

#include "sfg/explore.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace sfg::explore_detail {

inline constexpr int explore_part_format = 1;

inline constexpr explore_mode all_modes[] = {explore_mode::dpor, explore_mode::naive,
                                             explore_mode::random, explore_mode::pct};
// As SFG_EXPLORE and a part's options name it.
const char* mode_name(explore_mode m);

struct PartFinding {
    explore_finding f;
    std::uint64_t steps = 0;
    std::vector<std::uint32_t> path; // the task's place in the tree (engine/task_tree.hpp)
    std::uint64_t run = 0;           // the execution within the task
};

struct ExplorePart {
    std::uint32_t index = 1, count = 1;
    std::string options;  // options_text(): what makes two searches the same search
    std::string division; // the top of the search as the body's probe runs divided it
    std::uint64_t executions = 0;
    bool classes_are_executions = false; // naive, a preemption bound: every run counts
    std::vector<ClassId> classes;        // the distinct classes otherwise
    bool complete = false;
    std::vector<PartFinding> findings; // one per key
};

// The options that change which runs are explored or how they are reported (not jobs,
// task_budget, part_file) as one line.
std::string options_text(const explore_options& o, bool with_spec);

std::string write_part(const ExplorePart& p);
// The part in `text`, the contents of `path`; std::invalid_argument naming `path` and the problem.
ExplorePart read_part(const std::string& path, const std::string& text);
// The whole search's report from parts 1..N of one search (any order); std::invalid_argument
// naming the parts and the problem.
explore_report merge_parts(const std::vector<std::string>& paths,
                           const std::vector<ExplorePart>& parts);

} // namespace sfg::explore_detail
