// Self-checking testbench for counter8. Inputs change on the falling edge; outputs are
// checked 1 ns later against a model updated on the same rising edges as the design.
`timescale 1ns/1ps
module tb_counter8;
    reg        clk, rst, en, load;
    reg  [7:0] d;
    wire [7:0] q;
    wire       tc;
    reg  [7:0] m_q;
    integer errors, n, seed, r;

    counter8 dut (.clk(clk), .rst(rst), .en(en), .load(load), .d(d), .q(q), .tc(tc));

    initial clk = 0;
    always #5 clk = ~clk;

    always @(posedge clk) begin
        if (rst)       m_q <= 8'd0;
        else if (load) m_q <= d;
        else if (en)   m_q <= m_q + 8'd1;
    end

    task check;
        begin
            #1;
            if (q !== m_q || tc !== (en & (m_q == 8'hFF))) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH t=%0t rst=%b en=%b load=%b d=%h: got q=%h tc=%b, expected q=%h tc=%b",
                             $time, rst, en, load, d, q, tc, m_q, en & (m_q == 8'hFF));
            end
        end
    endtask

    task step(input r_i, input en_i, input load_i, input [7:0] d_i);
        begin
            @(negedge clk);
            rst = r_i; en = en_i; load = load_i; d = d_i;
            check;
        end
    endtask

    initial begin
        errors = 0; seed = 8;
        rst = 1; en = 0; load = 0; d = 0;
        // directed: count through a full wrap, hold, load over enable, reset over load
        step(0, 1, 0, 8'h00);
        for (n = 0; n < 260; n = n + 1) step(0, 1, 0, 8'h00);
        step(0, 0, 0, 8'h00); step(0, 0, 0, 8'h00);
        step(0, 1, 1, 8'hFD); step(0, 1, 0, 8'h00); step(0, 1, 0, 8'h00); step(0, 1, 0, 8'h00);
        step(0, 0, 1, 8'h5A); step(0, 0, 0, 8'h00);
        step(1, 1, 1, 8'h77); step(0, 0, 0, 8'h00);
        // random: reset 1/32, load 1/8, enable 3/4
        for (n = 0; n < 3000; n = n + 1) begin
            r = $random(seed);
            step(r[4:0] == 0, r[7:6] != 0, r[10:8] == 0, $random(seed));
        end
        @(negedge clk);
        if (errors == 0) $display("===========Your Design Passed===========");
        else $display("===========Test completed with %0d failures===========", errors);
        $finish;
    end
endmodule
