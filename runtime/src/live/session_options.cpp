// A session's options from SFG_OPTIONS and SFG_TRACE (docs/enforcers.md, "Options"): they
// override the options the program gives.
#include "session_options.hpp"

#include "sfg/runtime/live/env_options.hpp"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace sfg::detail {

namespace {

on_finding parse_policy(const std::string& v) {
    if (v == "log")
        return on_finding::log;
    if (v == "throw_error" || v == "throw")
        return on_finding::throw_error;
    if (v == "abort")
        return on_finding::abort;
    if (v == "collect")
        return on_finding::collect;
    throw std::invalid_argument("SFG_OPTIONS: policy '" + v +
                                "' is none of log, throw_error, abort, collect");
}

} // namespace

void for_each_env_option(const char* name,
                         const std::function<void(const std::string&, const std::string&)>& apply) {
    const char* env = std::getenv(name);
    if (!env)
        return;
    const std::string text(env);
    std::size_t pos = 0;
    while (pos < text.size()) {
        const std::size_t end = std::min(text.find_first_of(": \t\n", pos), text.size());
        const std::string item = text.substr(pos, end - pos);
        pos = end + 1;
        if (item.empty())
            continue;
        const std::size_t eq = item.find('=');
        if (eq == std::string::npos)
            throw std::invalid_argument(std::string(name) + ": '" + item + "' is not KEY=VALUE");
        apply(item.substr(0, eq), item.substr(eq + 1));
    }
}

void apply_environment(session_options& o) {
    for_each_env_option("SFG_OPTIONS", [&](const std::string& key, const std::string& value) {
        if (key == "policy")
            o.policy = parse_policy(value);
        else if (key == "analyses")
            o.analyses = value;
        else if (key == "trace" || key == "trace_path")
            o.trace_path = value;
        else if (key == "main_thread")
            o.main_thread = value;
        else
            throw std::invalid_argument("SFG_OPTIONS: unknown option '" + key +
                                        "' (known: policy, analyses, trace, main_thread)");
    });
    if (o.trace_path.empty())
        if (const char* env = std::getenv("SFG_TRACE"))
            o.trace_path = env;
}

} // namespace sfg::detail
