// Inference on traces given as text, each checked as `sfgc infer` checks it (docs/infer.md).
#pragma once

#include "sfg/infer/check.hpp"
#include "sfg/infer/infer.hpp"
#include "sfg/runtime/analyses.hpp"
#include "sfg/runtime/trace.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <unistd.h>
#include <vector>

namespace sfg::infer::testing {

struct Result {
    std::string spec;                          // the .sfg text
    std::map<std::string, std::string> disc;   // variable -> discipline ("" when none)
    std::map<std::string, std::string> reason; // variable -> why none (race, unordered)
    std::optional<std::string> check;          // check_inferred's complaint
    std::optional<std::string> error;          // add_trace's error
};

// Infers from `texts` (trace i named tI.std) and checks the result on them.
inline Result infer_texts(const std::vector<std::string>& texts) {
    Result r;
    Inferrer inf;
    std::vector<std::string> files;
    const auto dir =
        std::filesystem::temp_directory_path() / ("sfg-infer-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    for (std::size_t i = 0; i < texts.size(); ++i) {
        const std::string name = "t" + std::to_string(i) + ".std";
        Symbols syms;
        TraceRecorder rec;
        std::unique_ptr<RunningAnalysis> hb = make_analysis("hb");
        Fanout both;
        both.add(rec), both.add(hb->analysis());
        const TraceResult read = read_trace_text(texts[i], name, syms, both);
        REQUIRE_MESSAGE(read.ok(), read.error->to_string());
        both.finish(syms);
        if (auto err = inf.add_trace(name, rec, syms, hb->findings(syms))) {
            r.error = err->message;
            return r;
        }
        files.push_back((dir / name).string());
        std::ofstream(files.back()) << texts[i];
    }
    inf.finish();
    r.spec = render_sfg(inf);
    for (const InferredVariable& v : inf.variables()) {
        r.disc[v.name] = v.discipline;
        if (v.race)
            r.reason[v.name] = "race";
        else if (v.unordered)
            r.reason[v.name] = *v.unordered;
    }
    r.check = check_inferred(r.spec, files);
    return r;
}

// A trace from lines written with blanks between events.
inline std::string lines(const std::string& events) {
    std::string out;
    for (char c : events)
        out += c == ' ' ? '\n' : c;
    return out + "\n";
}

} // namespace sfg::infer::testing
