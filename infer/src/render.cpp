// The inferred spec as .sfg text with its reasons in comments, and as JSON (docs/infer.md).
#include "chain.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace sfg::infer {

namespace {

void declare(std::string& out, const char* word, const std::vector<std::string>& names) {
    if (!names.empty())
        out += fmt::format("{} {};\n", word, fmt::join(names, ", "));
}

std::string plural(std::uint64_t n, const char* one, const char* many) {
    return fmt::format("{} {}", n, n == 1 ? one : many);
}

std::string race_note(const RaceNote& r) {
    return fmt::format("data race (hb) in {}: {} {} at event {} races with event {}", r.trace,
                       r.thread, r.op, r.event, r.with_event);
}

// The reasons of one chain, one line an element or label.
void explain(std::string& out, const Chain& c, const Declarations& decls) {
    // A few traces by name (an exploration has thousands): the first three, then a count.
    constexpr std::size_t named = 3;
    if (c.traces.size() <= named + 1)
        out += fmt::format("//   {}:\n", fmt::join(c.traces, ", "));
    else
        out += fmt::format("//   {} and {} more:\n",
                           fmt::join(c.traces.begin(), c.traces.begin() + named, ", "),
                           c.traces.size() - named);
    for (std::size_t i = 0; i < c.elements.size(); ++i) {
        if (i > 0)
            out += fmt::format("//     ▷{}: {}\n", render_label(c.labels[i - 1]), c.whys[i - 1]);
        Chain one;
        one.elements = {c.elements[i]};
        out += fmt::format("//     {}: {}\n", render_chain(one, decls), c.elements[i].why);
    }
}

void variable(std::string& out, const InferredVariable& v, const Declarations& decls,
              std::size_t traces) {
    const std::string support =
        fmt::format("{} by {} ({}) in {} of {}", plural(v.accesses, "access", "accesses"),
                    plural(v.threads.size(), "thread", "threads"), fmt::join(v.threads, ", "),
                    v.traces.size(), plural(traces, "trace", "traces"));
    if (v.race) {
        out += fmt::format("var {}; // no discipline: {}\n//   {}\n", v.name, race_note(*v.race),
                           support);
        return;
    }
    if (v.unordered) {
        out +=
            fmt::format("var {}; // no discipline: {}\n//   {}\n", v.name, *v.unordered, support);
        return;
    }
    if (v.discipline.empty()) {
        out += fmt::format("var {}; // never read or written\n", v.name);
        return;
    }
    out += fmt::format("var {} : {};\n// {}: {}\n", v.name, v.discipline, v.name, support);
    for (const Chain& c : v.chains)
        explain(out, c, decls);
}

} // namespace

std::string render_sfg(const Inferrer& inf) {
    const Declarations& d = inf.declarations();
    std::string out = fmt::format("// Inferred by sfgc infer from {} (docs/infer.md).\n",
                                  plural(inf.trace_count(), "trace", "traces"));
    declare(out, "threads", d.threads);
    declare(out, "lock", d.locks);
    declare(out, "volatile", d.volatiles);
    declare(out, "queue", d.queues);
    for (const auto& [name, threads] : d.groups)
        out += fmt::format("group {} = {};\n", name, fmt::join(threads, ", "));
    for (const auto& barrier : d.barriers) {
        const auto& [name, threads] = barrier;
        const auto group = std::find_if(d.groups.begin(), d.groups.end(), [&](const auto& g) {
            return g.second == barrier.second; // (Clang 14 captures no structured binding)
        });
        out += fmt::format("barrier {}({});\n", name,
                           group != d.groups.end() ? group->first
                                                   : fmt::format("{}", fmt::join(threads, ", ")));
    }
    for (const InferredVariable& v : inf.variables()) {
        out += "\n";
        variable(out, v, d, inf.trace_count());
    }
    return out;
}

std::string render_json(const Inferrer& inf) {
    using Json = nlohmann::ordered_json;
    Json vars = Json::array(), racy = Json::array();
    for (const InferredVariable& v : inf.variables()) {
        if (v.race) {
            racy.push_back(Json{{"var", v.name},
                                {"trace", v.race->trace},
                                {"event", v.race->event},
                                {"with_event", v.race->with_event}});
            continue;
        }
        Json one = {{"var", v.name},
                    {"discipline", v.expanded.empty() ? Json(nullptr) : Json(v.expanded)},
                    {"accesses", v.accesses},
                    {"traces", v.traces.size()},
                    {"threads", v.threads}};
        if (v.unordered)
            one["unordered"] = *v.unordered;
        vars.push_back(std::move(one));
    }
    const Json doc = {{"variables", vars}, {"racy", racy}};
    return doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

} // namespace sfg::infer
