// Self-checking testbench for adder16: directed corners, then random vectors (fixed seed).
`timescale 1ns/1ps
module tb_adder16;
    reg  [15:0] a, b;
    reg         cin;
    wire [15:0] sum;
    wire        cout;
    reg  [16:0] expect_v;
    integer errors, checks, i, seed;

    adder16 dut (.a(a), .b(b), .cin(cin), .sum(sum), .cout(cout));

    task check;
        begin
            #1;
            expect_v = {1'b0, a} + {1'b0, b} + cin;
            checks = checks + 1;
            if ({cout, sum} !== expect_v) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH a=%h b=%h cin=%b: got cout=%b sum=%h, expected cout=%b sum=%h",
                             a, b, cin, cout, sum, expect_v[16], expect_v[15:0]);
            end
        end
    endtask

    task apply(input [15:0] x, input [15:0] y, input c);
        begin a = x; b = y; cin = c; check; end
    endtask

    initial begin
        errors = 0; checks = 0; seed = 16;
        apply(16'h0000, 16'h0000, 1'b0);
        apply(16'h0000, 16'h0000, 1'b1);
        apply(16'hFFFF, 16'h0001, 1'b0);
        apply(16'hFFFF, 16'h0000, 1'b1);
        apply(16'hFFFF, 16'hFFFF, 1'b1);
        apply(16'h8000, 16'h8000, 1'b0);
        apply(16'h7FFF, 16'h0001, 1'b0);
        apply(16'hAAAA, 16'h5555, 1'b1);
        apply(16'h5555, 16'h5555, 1'b0);
        for (i = 0; i < 16; i = i + 1) apply(16'h1 << i, 16'hFFFF >> (15 - i), i[0]);
        for (i = 0; i < 3000; i = i + 1) apply($random(seed), $random(seed), $random(seed));
        if (errors == 0) $display("===========Your Design Passed===========");
        else $display("===========Test completed with %0d failures===========", errors);
        $finish;
    end
endmodule
