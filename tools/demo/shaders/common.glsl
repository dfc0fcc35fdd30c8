// Included by every demo shader: the push constants, integer hashing (the only source of
// "randomness", so every run renders the same pixels) and the --load work loop.

layout(push_constant) uniform Push {
    uint load;         // --load multiplier of this pass, 1..1000
    float load_weight; // always 0.0 at run time; the compiler cannot know, so the loop stays
    uint strip_count;  // draws per render pass (full-screen passes draw one strip each)
    uint pad;
} pc;

// Iterations of the work loop per unit of --load. Large enough that the loop, not the
// fixed cost of the pass, dominates its GPU time on lavapipe, so load K costs ~K times load 1.
#define LOAD_UNIT_ITERATIONS 64u

uint hash_u32(uint x)
{
    // lowbias32 (Chris Wellons): cheap, well mixed, identical on every implementation.
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

float hash_unorm(uint x)
{
    return float(hash_u32(x) >> 8) * (1.0 / 16777216.0);
}

// Serial arithmetic whose trip count is the pass's load. The result is bounded in [0, 1)
// so that multiplying it by load_weight (0.0) can never produce a NaN in the image.
float load_work(vec2 seed)
{
    float a = fract(seed.x * 0.1031 + seed.y * 0.1137);
    uint n = pc.load * LOAD_UNIT_ITERATIONS;
    for (uint i = 0u; i < n; ++i)
        a = fract(a * 7.31 + sin(a * 3.1));
    return a;
}
