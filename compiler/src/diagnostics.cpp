#include "sfg/compiler/diagnostics.hpp"

#include <algorithm>
#include <ostream>

namespace sfg {

const char* to_string(Severity s) {
    switch (s) {
    case Severity::error:
        return "error";
    case Severity::warning:
        return "warning";
    case Severity::note:
        return "note";
    }
    return "?";
}

SourceFile::SourceFile(std::string name, std::string text)
    : name_(std::move(name)), text_(std::move(text)) {
    starts_.push_back(0);
    for (std::size_t i = 0; i < text_.size(); ++i)
        if (text_[i] == '\n')
            starts_.push_back(i + 1);
}

std::string_view SourceFile::line(int n) const {
    if (n < 1 || n > line_count())
        return {};
    std::size_t b = starts_[static_cast<std::size_t>(n - 1)];
    std::size_t e = text_.find('\n', b);
    if (e == std::string::npos)
        e = text_.size();
    if (e > b && text_[e - 1] == '\r')
        --e;
    return std::string_view(text_).substr(b, e - b);
}

void Diagnostics::report(Severity s, SourceLoc loc, std::string message) {
    if (s == Severity::error) {
        ++errors_;
        if (errors_ > error_limit_)
            return;
    }
    if (!seen_.emplace(static_cast<int>(s), loc.line, loc.col, message).second) {
        if (s == Severity::error)
            --errors_; // the same error reported twice (e.g. from two copies of a discipline)
        return;
    }
    diags_.push_back({s, loc, std::move(message)});
}

std::vector<Diagnostic> Diagnostics::sorted() const {
    std::vector<Diagnostic> out = diags_;
    std::stable_sort(out.begin(), out.end(),
                     [](const Diagnostic& a, const Diagnostic& b) { return a.loc < b.loc; });
    return out;
}

namespace {
// Printable form of a source line: control bytes other than tab become spaces so that the
// terminal is not disturbed by garbage input.
std::string printable(std::string_view line) {
    std::string out;
    for (unsigned char c : line)
        out += (c < 0x20 && c != '\t') || c == 0x7f ? ' ' : static_cast<char>(c);
    return out;
}

// Spaces (tabs kept) up to code point `col`, so the caret lines up under the column.
std::string caret_prefix(std::string_view line, int col) {
    std::string out;
    int cp = 1;
    for (std::size_t i = 0; i < line.size() && cp < col; ++i) {
        unsigned char c = static_cast<unsigned char>(line[i]);
        if ((c & 0xC0) == 0x80)
            continue; // continuation byte
        out += c == '\t' ? '\t' : ' ';
        ++cp;
    }
    while (cp++ < col)
        out += ' ';
    return out;
}
} // namespace

void print_diagnostics(std::ostream& os, const SourceFile& file, const Diagnostics& diags,
                       bool color) {
    const char* bold = color ? "\033[1m" : "";
    const char* reset = color ? "\033[0m" : "";
    for (const Diagnostic& d : diags.sorted()) {
        const char* sev = !color                            ? ""
                          : d.severity == Severity::error   ? "\033[1;31m"
                          : d.severity == Severity::warning ? "\033[1;35m"
                                                            : "\033[1;36m";
        os << bold << file.name() << ':' << d.loc.line << ':' << d.loc.col << ": " << reset << sev
           << to_string(d.severity) << ':' << reset << ' ' << bold << d.message << reset << '\n';
        std::string_view line = file.line(d.loc.line);
        if (d.loc.line >= 1 && d.loc.line <= file.line_count()) {
            os << printable(line) << '\n';
            os << caret_prefix(line, d.loc.col) << (color ? "\033[1;32m^\033[0m" : "^") << '\n';
        }
    }
    std::size_t shown = 0;
    for (const Diagnostic& d : diags.all())
        shown += d.severity == Severity::error;
    if (diags.error_count() > shown)
        os << file.name() << ": fatal error: too many errors (" << diags.error_count()
           << "), stopping now\n";
}

} // namespace sfg
