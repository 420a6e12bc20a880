// Self-checking testbench for gray_counter: model counts in Gray code directly (flip one bit per step).
`timescale 1ns/1ps
module tb_gray_counter;
    reg        clk, rst_n, en;
    wire [7:0] gray;
    reg  [7:0] m_gray;
    integer errors, n, seed, r;

    gray_counter dut (.clk(clk), .rst_n(rst_n), .en(en), .gray(gray));

    initial clk = 0;
    always #5 clk = ~clk;

    // next Gray code without going through binary: even parity flips bit 0, odd parity flips
    // the bit left of the lowest set bit (bit 7 when that is the top bit: the wrap to 0)
    function [7:0] gnext(input [7:0] g);
        integer k, low;
        begin
            if (^g == 1'b0) gnext = g ^ 8'h01;
            else begin
                low = 8;
                for (k = 7; k >= 0; k = k - 1) if (g[k]) low = k;
                gnext = (low >= 7) ? g ^ 8'h80 : g ^ (8'h02 << low);
            end
        end
    endfunction

    always @(posedge clk) begin
        if (!rst_n)  m_gray <= 8'h00;
        else if (en) m_gray <= gnext(m_gray);
    end

    task step(input r_i, input en_i);
        begin
            @(negedge clk);
            rst_n = r_i; en = en_i;
            #1;
            if (gray !== m_gray) begin
                errors = errors + 1;
                if (errors <= 5) $display("MISMATCH t=%0t rst_n=%b en=%b: got gray=%b, expected %b",
                                          $time, rst_n, en, gray, m_gray);
            end
        end
    endtask

    initial begin
        errors = 0; seed = 3;
        rst_n = 0; en = 0;
        for (n = 0; n < 520; n = n + 1) step(1, 1);   // two full wraps
        step(1, 0); step(1, 0); step(0, 1); step(1, 1);
        for (n = 0; n < 2000; n = n + 1) begin
            r = $random(seed);
            step(r[6:0] != 0, r[9:8] != 0);
        end
        step(1, 0);
        if (errors == 0) $display("===========Your Design Passed===========");
        else $display("===========Test completed with %0d failures===========", errors);
        $finish;
    end
endmodule
