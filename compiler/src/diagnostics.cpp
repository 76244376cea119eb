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
    // A note belongs to the diagnostic before it and moves with it.
    std::vector<std::vector<Diagnostic>> groups;
    for (const Diagnostic& d : diags_) {
        if (d.severity != Severity::note || groups.empty())
            groups.emplace_back();
        groups.back().push_back(d);
    }
    std::stable_sort(groups.begin(), groups.end(),
                     [](const auto& a, const auto& b) { return a.front().loc < b.front().loc; });
    std::vector<Diagnostic> out;
    for (auto& g : groups)
        out.insert(out.end(), g.begin(), g.end());
    return out;
}

namespace {
// The first `limit` code points of a line, each as its UTF-8 text; bytes that are not UTF-8 and
// control characters other than tab become '?' / ' ', so garbage input cannot disturb the
// terminal. Views, not strings: a 1 MB line with 50 errors on it must still print at once.
std::vector<std::string_view> code_points(std::string_view line, std::size_t limit) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < line.size() && out.size() < limit) {
        unsigned char c = static_cast<unsigned char>(line[i]);
        std::size_t len = c < 0x80           ? 1
                          : (c >> 5) == 0x6  ? 2
                          : (c >> 4) == 0xE  ? 3
                          : (c >> 3) == 0x1E ? 4
                                             : 0;
        bool ok = len != 0 && i + len <= line.size();
        for (std::size_t k = 1; ok && k < len; ++k)
            ok = (static_cast<unsigned char>(line[i + k]) & 0xC0) == 0x80;
        if (!ok) {
            out.emplace_back("?");
            ++i;
        } else if (len == 1 && ((c < 0x20 && c != '\t') || c == 0x7f)) {
            out.emplace_back(" ");
            ++i;
        } else {
            out.push_back(line.substr(i, len));
            i += len;
        }
    }
    return out;
}

// The source line and the caret under `col`; a long line is cut to a window around the column.
void print_snippet(std::ostream& os, std::string_view line, int col, bool color) {
    constexpr int width = 100;
    // Decoding stops one code point past the widest window we could show, which still tells
    // whether the line goes on beyond it.
    std::size_t limit = static_cast<std::size_t>(std::max(col, 1) - 1 + width) + 1;
    std::vector<std::string_view> cps = code_points(line, limit);
    int n = static_cast<int>(cps.size());
    int first = 0, last = n;
    if (n > width) {
        first = std::max(0, std::min(col - 1 - width / 2, n - width));
        last = std::min(n, first + width);
    }
    std::string text = first > 0 ? "..." : "", caret = first > 0 ? "   " : "";
    for (int i = first; i < last; ++i) {
        text += cps[static_cast<std::size_t>(i)];
        if (i < col - 1)
            caret += cps[static_cast<std::size_t>(i)] == "\t" ? '\t' : ' ';
    }
    if (last < n)
        text += "...";
    for (int i = std::max(n, first); i < col - 1; ++i)
        caret += ' ';
    os << text << '\n' << caret << (color ? "\033[1;32m^\033[0m" : "^") << '\n';
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
        if (d.loc.line >= 1 && d.loc.line <= file.line_count())
            print_snippet(os, file.line(d.loc.line), d.loc.col, color);
    }
    std::size_t shown = 0;
    for (const Diagnostic& d : diags.all())
        shown += d.severity == Severity::error;
    if (diags.error_count() > shown)
        os << file.name() << ": fatal error: too many errors: " << diags.error_count()
           << " found, only the first " << shown << " are shown\n";
}

} // namespace sfg
