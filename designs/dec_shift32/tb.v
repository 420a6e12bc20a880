// Self-checking testbench for dec_shift32: every shift amount on directed words, then random
// words and amounts, against a model that moves one bit at a time.
`timescale 1ns/1ps
module tb_dec_shift32;
    reg  [31:0] x;
    reg  [4:0]  sh;
    wire [31:0] y;
    reg  [31:0] m_y;
    integer errors, i, k, n, seed;

    dec_shift32 dut (.x(x), .sh(sh), .y(y));

    task apply(input [31:0] v, input [4:0] s);
        begin
            x = v; sh = s;
            #1;
            m_y = 32'd0;
            for (n = 0; n < 32; n = n + 1)
                if (n >= s) m_y[n] = v[n - s];
            if (y !== m_y) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH x=%h sh=%0d: got y=%h, expected %h", x, sh, y, m_y);
            end
        end
    endtask

    initial begin
        errors = 0; seed = 32;
        for (k = 0; k < 32; k = k + 1) begin
            apply(32'hFFFFFFFF, k); apply(32'h00000001, k); apply(32'h80000000, k);
            apply(32'hA5A5A5A5, k); apply(32'h5A5A5A5A, k); apply(32'h00000000, k);
            apply(32'h12345678, k); apply(32'hFEDCBA98, k);
            for (i = 0; i < 32; i = i + 1) apply(32'd1 << i, k);
        end
        for (i = 0; i < 4000; i = i + 1) apply($random(seed), $random(seed));
        if (errors == 0) $display("===========Your Design Passed===========");
        else $display("===========Test completed with %0d failures===========", errors);
        $finish;
    end
endmodule
