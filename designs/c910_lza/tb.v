// Testbench for c910_lza: compares the candidate ct_vfmau_lza with a golden copy of the C910
// reference (gold_ct_vfmau_lza, generated at load time by Task.testbench_sources()) on corner
// cases (cancellation at every bit position, both operation kinds) and random vectors.
`timescale 1ns/1ps
module tb_c910_lza;
    reg  [107:0] addend, summand;
    reg          sub_vld;
    wire [6:0]   lza_result, gold_result;
    reg  [107:0] mask;
    integer errors, checks, k, s, n, seed;

    ct_vfmau_lza      dut  (.addend(addend), .summand(summand), .sub_vld(sub_vld), .lza_result(lza_result));
    gold_ct_vfmau_lza gold (.addend(addend), .summand(summand), .sub_vld(sub_vld), .lza_result(gold_result));

    task apply(input [107:0] x, input [107:0] y, input sv);
        begin
            addend = x; summand = y; sub_vld = sv;
            #1;
            checks = checks + 1;
            if (lza_result !== gold_result || ^gold_result === 1'bx) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH addend=%h summand=%h sub_vld=%b: got lza_result=%0d, expected %0d",
                             addend, summand, sub_vld, lza_result, gold_result);
            end
        end
    endtask

    function [107:0] rnd(input integer dummy);
        rnd = {$random(seed), $random(seed), $random(seed), $random(seed)};
    endfunction

    initial begin
        errors = 0; checks = 0; seed = 910;
        for (s = 0; s < 2; s = s + 1) begin
            apply({108{1'b0}}, {108{1'b0}}, s);
            apply({108{1'b1}}, {108{1'b1}}, s);
            apply({108{1'b1}}, {108{1'b0}}, s);
            apply({108{1'b0}}, {108{1'b1}}, s);
            addend = rnd(0);
            apply(addend, addend, s);
            apply(addend, ~addend, s);
            // near-total cancellation: summand = ~addend except a disturbance at or below bit k
            for (k = 0; k < 108; k = k + 1) begin
                mask = ({{107{1'b0}}, 1'b1} << (k + 1)) - 1;
                addend = rnd(0);
                apply(addend, ~addend ^ ({{107{1'b0}}, 1'b1} << k), s);
                addend = rnd(0);
                apply(addend, ~addend ^ (rnd(0) & mask), s);
                addend = rnd(0);
                apply(addend, addend ^ (rnd(0) & mask), s);
                apply({108{1'b1}} >> k, {108{1'b1}} << k, s);
                // small operands: everything above bit k is kill (both zero)
                addend = rnd(0) & mask;
                apply(addend, rnd(0) & mask, s);
            end
        end
        // exhaustive over the three lowest bits of both operands, upper bits zero or cancelling
        for (n = 0; n < 128; n = n + 1) begin
            apply({105'd0, n[2:0]}, {105'd0, n[5:3]}, n[6]);
            apply({{105{1'b1}}, n[2:0]}, {105'd0, n[5:3]}, n[6]);
        end
        for (n = 0; n < 200; n = n + 1) apply(rnd(0), rnd(0), $random(seed));
        if (errors == 0) $display("===========Your Design Passed===========");
        else $display("===========Test completed with %0d failures===========", errors);
        $finish;
    end
endmodule
