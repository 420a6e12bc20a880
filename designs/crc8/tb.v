// Self-checking testbench for crc8: the "123456789" check value, then random bytes with random
// enable and resets, against a bit-serial model.
`timescale 1ns/1ps
module tb_crc8;
    reg        clk, rst, en;
    reg  [7:0] data;
    wire [7:0] crc;
    reg  [7:0] m_crc;
    reg  [71:0] msg;
    integer errors, n, seed, r;

    crc8 dut (.clk(clk), .rst(rst), .en(en), .data(data), .crc(crc));

    initial clk = 0;
    always #5 clk = ~clk;

    // bit-serial reference: one LFSR step per message bit
    function [7:0] serial(input [7:0] c, input [7:0] d);
        integer b;
        reg fb;
        begin
            for (b = 7; b >= 0; b = b - 1) begin
                fb = c[7] ^ d[b];
                c = {c[6:0], 1'b0} ^ (fb ? 8'h07 : 8'h00);
            end
            serial = c;
        end
    endfunction

    always @(posedge clk) begin
        if (rst)     m_crc <= 8'h00;
        else if (en) m_crc <= serial(m_crc, data);
    end

    task step(input r_i, input en_i, input [7:0] d_i);
        begin
            @(negedge clk);
            rst = r_i; en = en_i; data = d_i;
            #1;
            if (crc !== m_crc) begin
                errors = errors + 1;
                if (errors <= 5) $display("MISMATCH t=%0t rst=%b en=%b data=%h: got crc=%h, expected %h",
                                          $time, rst, en, data, crc, m_crc);
            end
        end
    endtask

    initial begin
        errors = 0; seed = 7;
        rst = 1; en = 0; data = 0;
        msg = "123456789";
        for (n = 8; n >= 0; n = n - 1) step(0, 1, msg[n*8 +: 8]);
        step(0, 0, 8'h00);
        if (crc !== 8'hF4) begin
            errors = errors + 1;
            $display("MISMATCH crc of \"123456789\" = %h, expected f4", crc);
        end
        step(1, 1, 8'hFF); step(0, 1, 8'h00); step(0, 1, 8'hFF); step(0, 0, 8'h12); step(0, 1, 8'h80);
        for (n = 0; n < 3000; n = n + 1) begin
            r = $random(seed);
            step(r[6:0] == 0, r[9:8] != 0, $random(seed));
        end
        step(0, 0, 8'h00);
        if (errors == 0) $display("===========Your Design Passed===========");
        else $display("===========Test completed with %0d failures===========", errors);
        $finish;
    end
endmodule
