// Self-checking testbench for lzc16: every leading-one position with random lower bits (fixed seed),
// plus zero and all-ones, against a top-down scan model.
`timescale 1ns/1ps
module tb_lzc16;
    reg  [15:0] d;
    wire [4:0]  count;
    wire        zero;
    reg  [4:0]  exp_count;
    reg         seen;
    integer errors, i, k, n, seed;

    lzc16 dut (.d(d), .count(count), .zero(zero));

    initial begin
        errors = 0;
        seed = 5;
        for (n = 0; n < 1602; n = n + 1) begin
            // n/100 picks the leading-one position; the last two vectors are zero and all ones
            i = n / 100;
            if (n == 1600) d = 16'h0000;
            else if (n == 1601) d = 16'hFFFF;
            else d = (16'h1 << i) | ($random(seed) & ((16'h1 << i) - 1));
            #1;
            // model: walk from the MSB down, counting zeros until the first one
            exp_count = 0; seen = 0;
            for (k = 15; k >= 0; k = k - 1) begin
                if (d[k]) seen = 1;
                else if (!seen) exp_count = exp_count + 1;
            end
            if (count !== exp_count || zero !== (d == 16'd0)) begin
                errors = errors + 1;
                if (errors <= 5) $display("MISMATCH d=%h: got count=%0d zero=%b, expected count=%0d zero=%b",
                                          d, count, zero, exp_count, d == 16'd0);
            end
        end
        if (errors == 0) $display("===========Your Design Passed===========");
        else $display("===========Test completed with %0d failures===========", errors);
        $finish;
    end
endmodule
