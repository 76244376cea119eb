// Helpers shared by the compiler tests: compile a spec text, look at its diagnostics.
#pragma once

#include "sfg/compiler/compile.hpp"
#include "sfg/compiler/parse.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace sfg::test {

struct Compiled {
    Diagnostics diags;
    std::optional<CompiledSpec> spec;

    const CompiledVariable& var(const std::string& name) const {
        for (const auto& v : spec->variables)
            if (v.name == name)
                return v;
        FAIL("no variable " << name);
        throw 0;
    }
    // "LINE:COL: severity: message" for each diagnostic, in printing order.
    std::vector<std::string> lines() const {
        std::vector<std::string> out;
        for (const Diagnostic& d : diags.sorted())
            out.push_back(std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + ": " +
                          to_string(d.severity) + ": " + d.message);
        return out;
    }
};

inline Compiled compile_text(const std::string& text) {
    Compiled c;
    SourceFile file("test.sfg", text);
    c.spec = compile_spec(file, c.diags);
    return c;
}

inline std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

inline std::string source_path(const std::string& rel) {
    return std::string(SFG_SOURCE_DIR) + "/" + rel;
}

// Calls f(path, compiled) for every spec under specs/ but specs/errors/; returns how many.
template <class F>
int for_each_spec(F f) {
    int n = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(source_path("specs"))) {
        if (entry.path().extension() != ".sfg" || entry.path().parent_path().filename() == "errors")
            continue;
        Compiled c = compile_text(read_file(entry.path().string()));
        CAPTURE(entry.path().string());
        REQUIRE(c.spec);
        f(entry.path().string(), c);
        ++n;
    }
    return n;
}

} // namespace sfg::test
