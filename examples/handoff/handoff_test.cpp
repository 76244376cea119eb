// A one-slot mailbox: the producer writes the message, then sets `full`; the consumer waits for
// `full`, reads the message, clears `full`, and the producer waits for that before the next one.
// Setting the flag before writing the message hands over an object still being written.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "handoff.sfg.hpp"

#include <sfg/doctest.hpp>

#include <thread>

namespace {

constexpr int rounds = 50;

int exchange(bool flag_too_early) {
    sfg::shared<int> message("message", 0);
    sfg::volatile_var<bool> full("full", false);
    int sum = 0;
    sfg::thread producer("producer", [&] {
        for (int i = 1; i <= rounds; ++i) {
            while (full.load()) // wait for an empty slot
                std::this_thread::yield();
            if (flag_too_early) {
                full.store(true);
                message.store(i);
            } else {
                message.store(i);
                full.store(true);
            }
        }
    });
    sfg::thread consumer("consumer", [&] {
        for (int i = 1; i <= rounds; ++i) {
            while (!full.load())
                std::this_thread::yield();
            sum += message.load();
            full.store(false);
        }
    });
    producer.join();
    consumer.join();
    return sum;
}

} // namespace

TEST_CASE("the message, then the flag") {
    sfg::doctest_session s(handoff::spec());
    CHECK(exchange(false) == rounds * (rounds + 1) / 2);
}

TEST_CASE("the flag before the message: a race on every run") {
    for (int run = 0; run < 10; ++run) {
        sfg::doctest_session s(handoff::spec());
        const std::size_t before = s.mark();
        exchange(true);
        CHECK(s.expect(before, "race", "message"));
        CHECK(s.expect(before, "violation", "message"));
    }
}
