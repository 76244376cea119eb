// What the live runtime keeps of a specification (spec.hpp): the declared names by kind and the
// nets N(G) of the annotated variables, built once.
#pragma once

#include "sfg/runtime/core/petri_net.hpp"
#include "sfg/runtime/net.hpp"
#include "sfg/runtime/op.hpp"
#include "sfg/spec.hpp"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace sfg::detail {

struct SpecImpl {
    std::string file;
    std::uint64_t hash = 0;
    std::vector<std::string> threads, locks, volatiles, barriers, queues, variables;
    // Each annotated variable with G and N(G), in declaration order.
    std::vector<std::pair<std::string, Discipline>> disciplines;
    std::vector<std::pair<std::string, Net>> nets;
    // Every declared name with its kind (a name has one: the compiler checks it).
    std::map<std::string, Namespace, std::less<>> kinds;
};

} // namespace sfg::detail
