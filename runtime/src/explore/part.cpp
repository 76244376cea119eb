// Writing, reading and merging the parts of a divided exploration (part.hpp).
#include "explore/part.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace sfg::explore_detail {

namespace {

using Json = nlohmann::ordered_json;

std::string hex(std::uint64_t v) {
    return fmt::format("{:016x}", v);
}

[[noreturn]] void bad(const std::string& path, const std::string& what) {
    throw std::invalid_argument(
        fmt::format("sfg::merge_explore_parts: '{}' is not an sfg::explore part: {}", path, what));
}

// A field of the part, of the type asked for, or the part is refused.
template <class T>
T field(const Json& j, const char* key, const std::string& path) {
    const auto it = j.find(key);
    if (it == j.end())
        bad(path, fmt::format("no \"{}\"", key));
    try {
        return it->get<T>();
    } catch (const nlohmann::json::exception&) {
        bad(path, fmt::format("\"{}\" is not of the expected type", key));
    }
}

ClassId class_of(const std::string& s, const std::string& path) {
    ClassId c;
    const auto colon = s.find(':');
    std::size_t used_a = 0, used_b = 0;
    try {
        if (colon == std::string::npos)
            throw std::invalid_argument(s);
        c.a = std::stoull(s.substr(0, colon), &used_a, 16);
        c.b = std::stoull(s.substr(colon + 1), &used_b, 16);
    } catch (const std::exception&) {
        bad(path, fmt::format("class '{}' is not HEX:HEX", s));
    }
    if (used_a != colon || used_b != s.size() - colon - 1)
        bad(path, fmt::format("class '{}' is not HEX:HEX", s));
    return c;
}

} // namespace

const char* mode_name(explore_mode m) {
    switch (m) {
    case explore_mode::dpor:
        return "dpor";
    case explore_mode::naive:
        return "naive";
    case explore_mode::random:
        return "random";
    case explore_mode::pct:
        return "pct";
    }
    return "?";
}

std::string options_text(const explore_options& o, bool with_spec) {
    return fmt::format("mode={} analyses={} max_executions={} max_steps={} max_preemptions={} "
                       "seed={} pct_depth={} replay={} spec={}",
                       mode_name(o.mode), o.analyses, o.max_executions, o.max_steps,
                       o.max_preemptions ? std::to_string(*o.max_preemptions) : "none", o.seed,
                       o.pct_depth, o.replay.empty() ? "none" : o.replay, with_spec ? "yes" : "no");
}

std::string write_part(const ExplorePart& p) {
    Json j;
    j["sfg_explore_part"] = explore_part_format;
    j["part"] = p.index;
    j["of"] = p.count;
    j["options"] = p.options;
    j["division"] = p.division;
    j["executions"] = p.executions;
    j["classes_are_executions"] = p.classes_are_executions;
    Json classes = Json::array();
    for (const ClassId& c : p.classes)
        classes.push_back(hex(c.a) + ":" + hex(c.b));
    j["classes"] = std::move(classes);
    j["complete"] = p.complete;
    Json findings = Json::array();
    for (const PartFinding& f : p.findings)
        findings.push_back({{"kind", f.f.kind},
                            {"analysis", f.f.analysis},
                            {"var", f.f.var},
                            {"message", f.f.message},
                            {"schedule", f.f.schedule},
                            {"steps", f.steps},
                            {"path", f.path},
                            {"run", f.run}});
    j["findings"] = std::move(findings);
    return j.dump(1) + "\n";
}

ExplorePart read_part(const std::string& path, const std::string& text) {
    Json j;
    try {
        j = Json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        bad(path, fmt::format("not JSON ({})", e.what()));
    }
    if (!j.is_object() || !j.contains("sfg_explore_part"))
        bad(path, "no \"sfg_explore_part\" (a part is what explore writes to part_file)");
    const int format = field<int>(j, "sfg_explore_part", path);
    if (format != explore_part_format)
        bad(path, fmt::format("format {}, this sfg reads format {}", format, explore_part_format));
    ExplorePart p;
    p.index = field<std::uint32_t>(j, "part", path);
    p.count = field<std::uint32_t>(j, "of", path);
    if (p.count == 0 || p.index == 0 || p.index > p.count)
        bad(path, fmt::format("part {} of {}", p.index, p.count));
    p.options = field<std::string>(j, "options", path);
    p.division = field<std::string>(j, "division", path);
    p.executions = field<std::uint64_t>(j, "executions", path);
    p.classes_are_executions = field<bool>(j, "classes_are_executions", path);
    for (const std::string& c : field<std::vector<std::string>>(j, "classes", path))
        p.classes.push_back(class_of(c, path));
    p.complete = field<bool>(j, "complete", path);
    const Json findings = field<Json>(j, "findings", path);
    if (!findings.is_array())
        bad(path, "\"findings\" is not a list");
    for (const Json& f : findings) {
        if (!f.is_object())
            bad(path, "a finding is not an object");
        PartFinding pf;
        pf.f.kind = field<std::string>(f, "kind", path);
        pf.f.analysis = field<std::string>(f, "analysis", path);
        pf.f.var = field<std::string>(f, "var", path);
        pf.f.message = field<std::string>(f, "message", path);
        pf.f.schedule = field<std::string>(f, "schedule", path);
        pf.steps = field<std::uint64_t>(f, "steps", path);
        pf.path = field<std::vector<std::uint32_t>>(f, "path", path);
        pf.run = field<std::uint64_t>(f, "run", path);
        p.findings.push_back(std::move(pf));
    }
    return p;
}

explore_report merge_parts(const std::vector<std::string>& paths,
                           const std::vector<ExplorePart>& parts) {
    const auto refuse = [](const std::string& what) {
        throw std::invalid_argument("sfg::merge_explore_parts: cannot merge: " + what);
    };
    if (parts.empty())
        refuse("no parts");
    const ExplorePart& first = parts.front();
    for (std::size_t k = 1; k < parts.size(); ++k) {
        const ExplorePart& p = parts[k];
        if (p.options != first.options)
            refuse(fmt::format("'{}' and '{}' are parts of different searches: different options "
                               "({} in '{}', {} in '{}')",
                               paths[0], paths[k], first.options, paths[0], p.options, paths[k]));
        if (p.count != first.count)
            refuse(fmt::format("'{}' is part {} of {}, but '{}' is part {} of {}: parts of "
                               "searches divided differently",
                               paths[k], p.index, p.count, paths[0], first.index, first.count));
        if (p.division != first.division)
            refuse(fmt::format("'{}' and '{}' are parts of different searches: their bodies' "
                               "first runs divided the search differently",
                               paths[0], paths[k]));
    }
    std::vector<std::size_t> seen(first.count + 1, parts.size());
    for (std::size_t k = 0; k < parts.size(); ++k) {
        std::size_t& s = seen[parts[k].index];
        if (s != parts.size())
            refuse(fmt::format("part {} of {} is given twice: '{}' and '{}'", parts[k].index,
                               first.count, paths[s], paths[k]));
        s = k;
    }
    for (std::uint32_t i = 1; i <= first.count; ++i)
        if (seen[i] == parts.size())
            refuse(fmt::format("part {} of {} is missing", i, first.count));
    // Executions add up; classes are the union; a key keeps the shortest run, the first in the
    // canonical order among equally short ones (as one process merging the tasks in that order).
    explore_report out;
    out.complete = true;
    std::set<ClassId> classes;
    using Key = std::tuple<std::string, std::string, std::string>;
    std::map<Key, const PartFinding*> kept;
    for (const ExplorePart& p : parts) {
        out.executions += p.executions;
        out.complete = out.complete && p.complete;
        classes.insert(p.classes.begin(), p.classes.end());
        for (const PartFinding& f : p.findings) {
            auto [it, fresh] = kept.try_emplace(Key{f.f.kind, f.f.analysis, f.f.var}, &f);
            const PartFinding& k = *it->second;
            if (!fresh && std::tie(f.steps, f.path, f.run) < std::tie(k.steps, k.path, k.run))
                it->second = &f;
        }
    }
    out.classes = first.classes_are_executions ? out.executions : classes.size();
    for (const auto& [key, f] : kept)
        out.findings.push_back(f->f);
    return out;
}

} // namespace sfg::explore_detail

namespace sfg {

explore_report merge_explore_parts(const std::vector<std::string>& files) {
    std::vector<explore_detail::ExplorePart> parts;
    for (const std::string& path : files) {
        std::ifstream in(path, std::ios::binary);
        if (!in)
            throw std::invalid_argument(
                fmt::format("sfg::merge_explore_parts: cannot open file '{}'", path));
        std::ostringstream text;
        text << in.rdbuf();
        parts.push_back(explore_detail::read_part(path, text.str()));
    }
    return explore_detail::merge_parts(files, parts);
}

} // namespace sfg
