// Pretty-printed JSON written as it is produced: containers opened and closed by hand, small
// values formatted by nlohmann::json. The text is byte for byte what dump(2) gives for the whole
// document; bytes that are not UTF-8 (file names, names from traces) become U+FFFD.
#pragma once

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace sfg {

class JsonStream {
public:
    explicit JsonStream(std::ostream& out) : out_(out) {}

    void begin_object() { open('{'); }
    void end_object() { close('}'); }
    void begin_array() { open('['); }
    void end_array() { close(']'); }

    // In an object: the next member's key; its value follows (a value() or a container).
    void key(std::string_view k) {
        separate();
        out_ << nlohmann::json(k).dump() << ": ";
    }
    template <class T>
    void member(std::string_view k, const T& v) {
        key(k);
        value(nlohmann::ordered_json(v));
    }
    // In an array: the next element is a container that follows.
    void begin_item() { separate(); }
    void item(const nlohmann::ordered_json& v) {
        begin_item();
        value(v);
    }
    // A whole value, after key() or begin_item().
    void value(const nlohmann::ordered_json& v) {
        const std::string text = v.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
        // Indent the value's own lines to its depth (strings in it hold no raw newline).
        std::size_t from = 0;
        for (std::size_t nl; (nl = text.find('\n', from)) != std::string::npos; from = nl + 1) {
            out_.write(text.data() + from, static_cast<std::streamsize>(nl + 1 - from));
            indent();
        }
        out_.write(text.data() + from, static_cast<std::streamsize>(text.size() - from));
    }

private:
    // A container starts the document or follows key() / begin_item().
    void open(char c) {
        out_ << c;
        first_.push_back(true);
    }
    void close(char c) {
        const bool empty = first_.back();
        first_.pop_back();
        if (!empty) {
            out_ << '\n';
            indent();
        }
        out_ << c;
    }
    // Before an element: a comma after the previous one, a new line, the indentation.
    void separate() {
        if (!first_.back())
            out_ << ',';
        first_.back() = false;
        out_ << '\n';
        indent();
    }
    void indent() {
        static constexpr std::string_view spaces = "                                ";
        for (std::size_t n = 2 * first_.size(); n > 0;) {
            const std::size_t k = std::min(n, spaces.size());
            out_.write(spaces.data(), static_cast<std::streamsize>(k));
            n -= k;
        }
    }

    std::ostream& out_;
    std::vector<bool> first_; // per open container: no element written yet
};

} // namespace sfg
