// One diagnostics engine for the whole front end (after Clang's): the ANTLR error
// listeners, sema and the SFG builder report (severity, location, message) here and keep going,
// so a user sees every mistake at once; one printer formats them.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace sfg {

// 1-based line and column; columns count Unicode code points (a tab is one column).
struct SourceLoc {
    int line = 0;
    int col = 0;
    friend auto operator<=>(const SourceLoc&, const SourceLoc&) = default;
};

enum class Severity { error, warning, note };
const char* to_string(Severity s);

struct Diagnostic {
    Severity severity = Severity::error;
    SourceLoc loc;
    std::string message;
};

// A source text with its name, split into lines for printing.
class SourceFile {
public:
    SourceFile(std::string name, std::string text);
    const std::string& name() const { return name_; }
    const std::string& text() const { return text_; }
    std::string_view line(int n) const; // 1-based; empty when out of range
    int line_count() const { return static_cast<int>(starts_.size()); }

private:
    std::string name_;
    std::string text_;
    std::vector<std::size_t> starts_;
};

class Diagnostics {
public:
    // After `error_limit` errors, further ones are counted but not kept (Clang's -ferror-limit);
    // front-end passes check limit_reached() to stop early on garbage input.
    explicit Diagnostics(std::size_t error_limit = 50) : error_limit_(error_limit) {}

    void report(Severity s, SourceLoc loc, std::string message);
    void error(SourceLoc loc, std::string message) {
        report(Severity::error, loc, std::move(message));
    }
    void warning(SourceLoc loc, std::string message) {
        report(Severity::warning, loc, std::move(message));
    }
    void note(SourceLoc loc, std::string message) {
        report(Severity::note, loc, std::move(message));
    }

    bool has_errors() const { return errors_ > 0; }
    std::size_t error_count() const { return errors_; }
    bool limit_reached() const { return errors_ >= error_limit_; }
    // Kept diagnostics in report order (duplicates dropped).
    const std::vector<Diagnostic>& all() const { return diags_; }
    // Sorted by location, errors and warnings interleaved as they appear in the file.
    std::vector<Diagnostic> sorted() const;

private:
    std::size_t error_limit_;
    std::size_t errors_ = 0;
    std::vector<Diagnostic> diags_;
    std::set<std::tuple<int, int, int, std::string>> seen_;
};

// `FILE:LINE:COL: error: MESSAGE`, then the source line and a caret under the column; a last
// line says how many errors were not shown when the limit cut them.
void print_diagnostics(std::ostream& os, const SourceFile& file, const Diagnostics& diags,
                       bool color = false);

} // namespace sfg
