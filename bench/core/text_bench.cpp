// The text forms of the filter types, which bloom_out/cbf_out and
// bloom_in/cbf_in run on every value pg_dump, COPY, psql and Citus move:
// base64 (what values print in) against 0.1.0's hex (which input still
// reads), writing and reading random bytes of a filter's size. Median of
// the runs; MB/s of the filter's bytes, and base64's time as a ratio of hex's.
//   make bench/core/text_bench && bench/core/text_bench [MiB...] [runs]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <vector>

#include "filter_text.hpp"
#include "hex.hpp"

namespace {

double median_seconds(int runs, const std::function<void()>& f) {
    std::vector<double> t;
    for (int r = 0; r < runs; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        f();
        t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

void compare(size_t bytes, int runs) {
    std::vector<uint8_t> data(bytes);
    std::mt19937_64 rng(1);
    for (auto& b : data) b = uint8_t(rng());
    std::vector<char> hex_text(sketch::hex::text_bytes(bytes) + 1);
    std::vector<char> b64_text(sketch::filter_text::text_bytes(bytes) + 1);
    std::vector<uint8_t> back(bytes);
    // Values print as a 28-byte header and the array: the two-part writer.
    const size_t header = std::min<size_t>(28, bytes);
    const double hex_out = median_seconds(runs, [&] { sketch::hex::write_text(data.data(), bytes, hex_text.data()); });
    const double b64_out = median_seconds(runs, [&] {
        sketch::filter_text::write_text(data.data(), header, data.data() + header, bytes - header, b64_text.data());
    });
    const double hex_in = median_seconds(runs, [&] {
        sketch::filter_text::read_text(hex_text.data(), hex_text.size() - 1, back.data(), "bench");
    });
    const double b64_in = median_seconds(runs, [&] {
        sketch::filter_text::read_text(b64_text.data(), b64_text.size() - 1, back.data(), "bench");
    });
    if (back != data) std::abort();
    const double mb = double(bytes) / 1e6;
    std::printf("| %.1f | %zu / %zu | %.0f / %.0f | %.2f | %.0f / %.0f | %.2f |\n", double(bytes) / (1 << 20),
                hex_text.size() - 1, b64_text.size() - 1, mb / hex_out, mb / b64_out, b64_out / hex_out, mb / hex_in,
                mb / b64_in, b64_in / hex_in);
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<double> mib;
    int runs = 9;
    for (int i = 1; i < argc; ++i) mib.push_back(std::atof(argv[i]));
    if (mib.size() > 1) {
        runs = int(mib.back());
        mib.pop_back();
    }
    if (mib.empty()) mib = {0.0625, 1.25, 64};
    std::printf("| MiB | text chars hex / base64 | out MB/s hex / base64 | out time base64/hex | in MB/s hex / base64 | in time base64/hex |\n");
    std::printf("| ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (double m : mib) compare(size_t(m * (1 << 20)), runs);
    return 0;
}
