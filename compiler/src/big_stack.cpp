#include "big_stack.hpp"

#include <exception>
#include <pthread.h>

namespace sfg {

void run_with_big_stack(const std::function<void()>& fn) {
    struct Job {
        const std::function<void()>* fn;
        std::exception_ptr error;
    } job{&fn, nullptr};
    auto trampoline = [](void* p) -> void* {
        auto* j = static_cast<Job*>(p);
        try {
            (*j->fn)();
        } catch (...) {
            j->error = std::current_exception();
        }
        return nullptr;
    };
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, std::size_t{256} << 20);
    pthread_t th;
    if (pthread_create(&th, &attr, trampoline, &job) != 0)
        trampoline(&job); // no thread to be had: run here
    else
        pthread_join(th, nullptr);
    pthread_attr_destroy(&attr);
    if (job.error)
        std::rethrow_exception(job.error);
}

} // namespace sfg
