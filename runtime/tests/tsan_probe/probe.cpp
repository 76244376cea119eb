// Run by scripts/test.sh in the ThreadSanitizer build, which expects TSan to report the race on
// `plain`: the only thing between the two writes is sfg's own lock (both threads record events
// under it), which orders sfg's events, not the program (docs/enforcers.md, "ThreadSanitizer").
// Were it visible to TSan, the race would be hidden.
#include "sfg/sfg.hpp"

#include <thread>

int plain = 0; // not instrumented by sfg: TSan's to check

int main() {
    sfg::session_options o;
    o.policy = sfg::on_finding::collect;
    o.analyses = "hb";
    sfg::session s(o);
    sfg::shared<bool> done("done", false);
    sfg::thread a("a", [&] {
        plain = 1;
        done = true;
    });
    sfg::thread b("b", [&] {
        while (!done)
            std::this_thread::yield();
        plain = 2;
    });
    a.join();
    b.join();
    return s.findings().size() == 1 ? 0 : 3; // sfg: the race on done
}
