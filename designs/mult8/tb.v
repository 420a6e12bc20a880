// Self-checking testbench for mult8: every operand pair (65 536 vectors, exhaustive).
`timescale 1ns/1ps
module tb_mult8;
    reg  [7:0]  a, b;
    wire [15:0] p;
    reg  [15:0] expect_v;
    integer errors, i, j;

    mult8 dut (.a(a), .b(b), .p(p));

    initial begin
        errors = 0;
        for (i = 0; i < 256; i = i + 1) begin
            for (j = 0; j < 256; j = j + 1) begin
                a = i; b = j;
                #1;
                expect_v = i * j;
                if (p !== expect_v) begin
                    errors = errors + 1;
                    if (errors <= 5) $display("MISMATCH a=%0d b=%0d: got p=%0d, expected %0d", a, b, p, expect_v);
                end
            end
        end
        if (errors == 0) $display("===========Your Design Passed===========");
        else $display("===========Test completed with %0d failures===========", errors);
        $finish;
    end
endmodule
