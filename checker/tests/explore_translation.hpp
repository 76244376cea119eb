// A program's C++ translation for sfg::explore (docs/explore.md, "The same answer as sfgc
// check"): the lowered program (Model) run statement by statement on sfg objects — a stack
// machine for the local code, the sfg operation each visible instruction stands for, `await e;`
// as sfg::await naming the volatiles of e (one step, as in programs), `assert e;` as sfg::check —
// under the program's disciplines. The body's thread is the program's root thread `main` if it
// has one, and starts the other root threads as one thread_group (which adds a first and a last
// step, and no class).
//
// Left out (translatable() is false): programs with a queue that holds more than one object
// (`deq q x` waits until x is at the front; sfg::queue::pop takes the front, whatever it is: the
// same only when x is all q ever holds), awaits on data variables (sfg::await's condition loads
// volatiles only), `write v;` on a volatile (which stores v's value at the step:
// volatile_var::store takes it before) and joins of threads forked in another group. Ill-formed
// operations are the caller's to leave out (the live runtime reports misuses, not failures).
//
// The translation test (explore_translation_test.cpp) and bench/explore_programs.cpp use it.
#pragma once

#include "sfg/checker/model.hpp"
#include "sfg/compiler/compile.hpp"
#include "sfg/spec.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace sfg::checker::test {

// Whether the translation can run `m` exactly (the header says what is left out).
bool translatable(const Model& m);

// The body that runs `m` once; `m` must outlive it.
std::function<void()> translation(const Model& m);

// The analyses that `sfgc check` runs on every execution of `m`, as sfg::explore names them:
// FastTrack and the Enforcer, and SingleTrack when `m` has a deterministic block.
std::string translation_analyses(const Model& m);

// The program's disciplines as the live runtime takes them: the data of the header that
// `sfgc --emit-cpp` writes (compiler/src/render_cpp.cpp, whose tables these are), built in memory.
class SpecData {
public:
    explicit SpecData(const CompiledSpec& c);
    sfg::spec spec() const { return sfg::spec(data_); }

private:
    std::uint32_t name(const std::string& n);
    spec_data::list list(const std::vector<std::uint32_t>& ix);
    spec_data::list names_list(const std::vector<std::string>& ns);
    spec_data::edge edge(const Mechanism& z);
    void variable(const CompiledVariable& v);

    std::vector<std::string> names_;
    std::map<std::string, std::uint32_t> ids_;
    std::vector<const char*> pointers_;
    std::vector<std::uint32_t> lists_;
    std::vector<spec_data::barrier> barriers_;
    std::vector<spec_data::mode> modes_;
    std::vector<spec_data::edge> edges_;
    std::vector<spec_data::variable> variables_;
    spec_data::spec data_{};
};

} // namespace sfg::checker::test
